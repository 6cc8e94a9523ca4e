// The arguments of `fleet serve`. The flag is one more way to set FLEET_ROLES, but a user who typed the flag must be
// told about the flag: the variable's name in the message would send them looking for an environment they never set.
import { ConfigError, loadConfig, ROLES, type Config } from '../core/config.js'
import { StartFailure } from './start-failure.js'

type Env = Record<string, string | undefined>

const ROLES_RULE = `a comma-separated list of ${ROLES.join(', ')}`

/** The configuration of `fleet serve <args>`: the environment, with `--roles R,...` (or `--roles=R,...`) as FLEET_ROLES. */
export function serveConfig (args: readonly string[], env: Env): Readonly<Config> {
  const i = args.indexOf('--roles')
  const value = i >= 0 ? args[i + 1] : args.find((a) => a.startsWith('--roles='))?.slice('--roles='.length)
  const stray = args.find((a, k) => a !== '--roles' && !a.startsWith('--roles=') && !(i >= 0 && k === i + 1))
  if (stray !== undefined) throw new StartFailure(`serve takes only --roles ${ROLES.join(',')}, got "${stray}" (fleet help)`)
  if (i < 0 && value === undefined) return loadConfig(env)
  if (value === undefined || value === '' || value.startsWith('--')) throw new StartFailure(`--roles needs ${ROLES_RULE}`)
  try {
    return loadConfig({ ...env, FLEET_ROLES: value })
  } catch (err) {
    if (err instanceof ConfigError && err.variable === 'FLEET_ROLES') throw new StartFailure(`--roles must be ${ROLES_RULE}, got "${value}"`, { cause: err })
    throw err
  }
}
