// `npx fleet <command>`: serve (what `npm start` runs), migrate, seed <file.json>, admin reset-password <email>,
// admin unlock <email>, broker sync, certs dev.
// Each command imports what it runs when it runs: `fleet migrate`, a command's --help or a usage error loads no HTTP
// server, broker or device transport.
import { readFile } from 'node:fs/promises'
import { ConfigError, loadConfig, tlsEnabled, type Config } from '../core/config.js'
import { SeedError } from '../core/services/seed/seed-error.js'
import { StoreLockedError } from '../storage/dir-lock.js'
import { serveConfig } from './serve-args.js'
import { StartFailure } from './start-failure.js'

// Each command's lines of the usage, by command: `fleet <command> --help` prints its own.
const HELP: Record<string, string> = {
  serve: `  serve              run the service (HTTP API) on the configured ports
    [--roles R,...]  only these parts: api (HTTP API), ingest (device transports), worker (operations,
                     repeatable jobs); default all three (FLEET_ROLES)`,
  migrate: '  migrate            apply the database migrations and exit',
  seed: '  seed <file.json>   create or update what the file describes (see README, "Seed file")',
  simulate: '  simulate ...       run simulated devices against a running service (fleet simulate --help)',
  admin: `  admin reset-password <email>
                     give that user a new generated password and print it
  admin unlock <email>
                     forget that user's failed sign-ins (docs/security.md, "Sign-in throttling")`,
  broker: `  broker sync        put every system's device logins into the MQTT_URL broker (Mosquitto dynamic security)
                     and remove those of systems no longer there; prints the counts`,
  certs: `  certs dev --serial <sn> [--out <dir>]
                     write a development CA, a server certificate for localhost and a device certificate
                     with CN <sn> into <dir> (default ./certs), overwriting nothing (docs/cli.md)`
}

const USAGE = `usage: fleet <command>\n${Object.values(HELP).join('\n')}`

async function serve (config: Readonly<Config>): Promise<void> {
  // Before loading the service (a second or more) and migrating the store (tens of seconds on a first start): a bad
  // TLS file, then a busy port.
  if (tlsEnabled(config)) await (await import('../ingest/tls/tls-files.js')).readTlsFiles(config)
  await (await import('./port-check.js')).checkPorts(config)
  const [{ createLogger }, { localOrigin, startService, welcome }] = await Promise.all([import('./logger.js'), import('./serve.js')])
  const log = createLogger(config)
  const running = await startService(config, log)
  let stopping = false
  const stop = (signal: string): void => {
    if (stopping) return
    stopping = true
    log.info({ signal }, 'shutting down')
    running.close().then(() => process.exit(0), (err: unknown) => { log.error({ err }, 'shutdown failed'); process.exit(1) })
  }
  process.on('SIGTERM', () => { stop('SIGTERM') })
  process.on('SIGINT', () => { stop('SIGINT') })
  // The TLS files are read again (docs/security.md#tls): a renewed certificate without a restart.
  const tls = running.tls
  if (tls !== undefined) process.on('SIGHUP', () => { tls.reload('SIGHUP').catch((err: unknown) => { log.error({ err }, 'TLS reload failed') }) })
  // Announced once the signals are handled: whoever reads "started" may stop the service at once.
  const hello = welcome(running.bootstrap, localOrigin(running))
  if (hello !== '') process.stdout.write(hello + '\n')
  log.info({ httpPort: running.httpPort, httpsPort: running.httpsPort, ports: running.ports, roles: config.FLEET_ROLES, store: config.DATABASE_URL === undefined ? 'pglite' : 'postgres' }, 'fleet service started')
}

async function runMigrate (config: Readonly<Config>): Promise<void> {
  const [{ openStore }, { migrate }] = await Promise.all([import('./store.js'), import('../storage/migrate.js')])
  const db = await openStore(config)
  try {
    const applied = await migrate(db)
    process.stdout.write(applied.length === 0 ? 'migrations: up to date\n' : `migrations applied: ${applied.join(', ')}\n`)
  } finally { await db.close() }
}

async function seed (config: Readonly<Config>, file: string | undefined): Promise<void> {
  if (file === undefined) throw new SeedError('seed needs a file: fleet seed <file.json>')
  let doc: unknown
  try { doc = JSON.parse(await readFile(file, 'utf8')) } catch (err) { throw new SeedError(`cannot read ${file}: ${(err as Error).message}`) }
  const [{ createContext, openInfra }, { createLogger }] = await Promise.all([import('./context.js'), import('./logger.js')])
  const log = createLogger({ LOG_LEVEL: 'warn' })
  const infra = await openInfra(config, log)
  const ctx = createContext(config, log, infra)
  try {
    const report = await ctx.services.seed.seed(doc)
    process.stdout.write(`seeded ${file}: ${Object.entries(report).map(([k, n]) => `${n} ${k}`).join(', ')}\n`)
  } finally { await ctx.close() }
}

async function admin (config: Readonly<Config>, [action, email]: string[]): Promise<void> {
  if ((action !== 'reset-password' && action !== 'unlock') || email === undefined) {
    throw new StartFailure('usage: fleet admin reset-password <email> | fleet admin unlock <email>')
  }
  const [{ openStore }, { migrate }, { createRepositories }, { resetPassword }, { unlockSignIn }] = await Promise.all([
    import('./store.js'), import('../storage/migrate.js'), import('../storage/repositories/index.js'), import('../core/services/password-reset.js'),
    import('../core/services/sign-in-unlock.js')])
  const db = await openStore(config)
  try {
    await migrate(db)
    if (action === 'unlock') {
      if (!(await unlockSignIn(createRepositories(db), email, Date.now()))) throw new StartFailure(`no user has the e-mail "${email}"`)
      process.stdout.write(`sign-in of ${email} unlocked: its failed tries from every address are forgotten\n`)
      return
    }
    const password = await resetPassword(createRepositories(db).users, email, config.PASSWORD_HASH_COST)
    if (password === undefined) throw new StartFailure(`no user has the e-mail "${email}"`)
    process.stdout.write(`new password of ${email} (shown once): ${password}\n`)
  } finally { await db.close() }
}

async function broker (config: Readonly<Config>, args: string[]): Promise<void> {
  const [{ openStore }, { migrate }, { createLogger }, { brokerCommand }] = await Promise.all([
    import('./store.js'), import('../storage/migrate.js'), import('./logger.js'), import('./broker.js')])
  const db = await openStore(config)
  try {
    await migrate(db)
    process.stdout.write(await brokerCommand(config, db, createLogger({ LOG_LEVEL: 'warn' }), args) + '\n')
  } finally { await db.close() }
}

async function main (argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  // `fleet` alone is most likely someone finding out what it does: the help, not a service started by surprise
  // (`npm start` says `fleet serve`).
  if (command === undefined) { process.stderr.write(USAGE + '\n'); process.exitCode = 1; return }
  if (command === 'help' || command === '--help') { process.stdout.write(USAGE + '\n'); return }
  // Before the configuration is read or anything is loaded: help answers at once, whatever the environment. The
  // simulator has a usage of its own (fleet simulate --help).
  if (Object.hasOwn(HELP, command) && command !== 'simulate' && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(`usage: fleet ${command}\n${HELP[command]}\n`)
    return
  }
  if (command === 'serve') return await serve(serveConfig(rest, process.env))
  // No configuration: the certificates are files for a service still to start.
  if (command === 'certs') { process.stdout.write(await (await import('./certs.js')).certsCommand(rest) + '\n'); return }
  const config = loadConfig(process.env)
  if (command === 'migrate') return await runMigrate(config)
  if (command === 'seed') return await seed(config, rest[0])
  if (command === 'simulate') { process.exitCode = await (await import('./simulate.js')).simulate(config, rest); return }
  if (command === 'admin') return await admin(config, rest)
  if (command === 'broker') return await broker(config, rest)
  process.stderr.write(`unknown command "${command}"\n${USAGE}\n`)
  process.exitCode = 2
}

main(process.argv.slice(2)).catch((err: unknown) => {
  // What a user can fix is one line (docs/cli.md#command-line); a stack trace only for what is a bug of the service.
  if (err instanceof ConfigError || err instanceof SeedError || err instanceof StartFailure || err instanceof StoreLockedError) process.stderr.write(`fleet: ${err.message}\n`)
  else process.stderr.write(`fleet: ${(err as Error).stack ?? String(err)}\n`)
  process.exit(1)
})
