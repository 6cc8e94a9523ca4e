// The servers the server-backed suites use, when set (see .ci/run). Tests read the environment only here.
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL === '' ? undefined : process.env.TEST_DATABASE_URL
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL === '' ? undefined : process.env.TEST_REDIS_URL
export const TEMPLATE_DB = 'fleet_test_template'

/** The URL of another database on the same server. */
export function databaseUrl (base: string, name: string): string {
  const u = new URL(base)
  u.pathname = '/' + name
  return u.toString()
}
