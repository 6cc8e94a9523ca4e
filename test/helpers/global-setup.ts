// Runs once before every suite. With TEST_DATABASE_URL set, the server must answer (a CI run never falls back
// to the embedded store) and a migrated template database is made for the per-file databases.
import pg from 'pg'
import { Redis } from 'ioredis'
import { openPostgresDb } from '../../storage/postgres-db.js'
import { migrate } from '../../storage/migrate.js'
import { TEMPLATE_DB, TEST_DATABASE_URL, TEST_REDIS_URL, databaseUrl } from './env.js'

async function prepareTemplate (url: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  try {
    await admin.connect()
  } catch (err) {
    throw new Error(`TEST_DATABASE_URL=${url} does not answer: ${(err as Error).message}`)
  }
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`)
    await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`)
  } finally { await admin.end() }
  const db = await openPostgresDb(databaseUrl(url, TEMPLATE_DB), 1)
  try { await migrate(db) } finally { await db.close() }
}

async function checkRedis (url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000, retryStrategy: () => null })
  try {
    await redis.connect()
    await redis.ping()
  } catch (err) {
    throw new Error(`TEST_REDIS_URL=${url} does not answer: ${(err as Error).message}`)
  } finally { redis.disconnect() }
}

export default async function setup (): Promise<void> {
  if (TEST_DATABASE_URL !== undefined) await prepareTemplate(TEST_DATABASE_URL)
  if (TEST_REDIS_URL !== undefined) await checkRedis(TEST_REDIS_URL)
}
