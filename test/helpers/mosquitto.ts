// A Mosquitto of a test's own (tests start their own broker): the binary of the machine with the dynamic
// security plugin, on a free port, its configuration and dynamic security file in a temporary directory, an admin
// account made by `mosquitto_ctrl dynsec init`. Stopped by its pid. With `tls`, a device TLS listener as
// deploy/mosquitto/mosquitto.conf has it, run under deploy/mosquitto/start.sh, which copies the bundle the service
// writes (BROKER_CA_FILE) to its cafile and restarts the broker when it changes, as in the cluster.
//
// Test files run in parallel and a free port is free only until someone binds it: the port found may be taken by
// another test's broker before this one binds it. Each broker has an admin password of its own, so that the other
// broker refuses the readiness check (with a shared one, the test would go on against the other broker, whose full
// syncs delete this test's devices as strays), and a broker that could not bind is started again on another port.
import { randomBytes } from 'node:crypto'
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt'
import { freePort, restartablePort } from './child.js'
import { eventually } from './eventually.js'

const PLUGIN = '/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so'
export const DYNSEC_ADMIN = 'fleet-admin'
const START_SH = fileURLToPath(new URL('../../deploy/mosquitto/start.sh', import.meta.url))
// How often start.sh looks at the bundle here (5 s in the cluster).
const RELOAD_POLL_S = '0.1'

/** The device TLS listener of deploy/mosquitto/mosquitto.conf, on a port of its own. */
export interface MosquittoTls {
  /** PEM files of the broker's server certificate (for 127.0.0.1) and its key. */
  certFile: string
  keyFile: string
  /** The trust bundle the service writes (BROKER_CA_FILE). */
  bundleFile: string
  /** The operator's CRL, if any. */
  crlFile?: string
}

/** An admin password for a broker: one per broker (see the top of this file). */
export function adminPassword (): string {
  return `fleet-admin-${randomBytes(6).toString('hex')}`
}

export interface Mosquitto {
  port: number
  /** The device TLS listener's port (with `tls`). */
  tlsPort: number | undefined
  /** How many times start.sh restarted the broker for a changed bundle (with `tls`). */
  restarts (): number
  /** mqtt://127.0.0.1:<port> */
  url: string
  /** The admin account in the URL: what the service's MQTT_URL is. */
  adminUrl: string
  /** A connection as the admin account (who may read every topic), closed with the broker. */
  admin (): Promise<MqttClient>
  /** Runs dynamic security commands as the admin; answers the responses. */
  dynsec (commands: Array<Record<string, unknown>>): Promise<Array<{ command: string, error?: string, data?: any }>>
  stop (): Promise<void>
}

class PortTaken extends Error {}

async function waitListening (port: number, password: string, child: ChildProcess): Promise<void> {
  const outcome = await eventually(async () => {
    // Exited before it answered: most often, the port was bound by someone else meanwhile.
    if (child.exitCode !== null) return 'exited'
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { username: DYNSEC_ADMIN, password, reconnectPeriod: 0, connectTimeout: 2000 })
    await c.endAsync()
    return 'answers'
  }, { timeoutMs: 15_000, intervalMs: 100, retryErrors: true })
  if (outcome === 'exited') throw new PortTaken(`mosquitto exited with ${child.exitCode}`)
}

function tlsListener (dir: string, port: number, tls: MosquittoTls): string[] {
  return [
    `listener ${port} 127.0.0.1`,
    `certfile ${tls.certFile}`,
    `keyfile ${tls.keyFile}`,
    `cafile ${join(dir, 'device-cas.pem')}`,
    'require_certificate true',
    'use_identity_as_username true',
    'tls_version tlsv1.2',
    ...tls.crlFile === undefined ? [] : [`crlfile ${tls.crlFile}`]
  ]
}

interface Spawned { kill: () => Promise<void>, restarts: () => number }

/** Mosquitto started and answering on `port` (answers how to stop it), or PortTaken. */
async function spawnBroker (dir: string, port: number, password: string, tls?: { port: number } & MosquittoTls): Promise<Spawned> {
  const dynsecFile = join(dir, 'dynamic-security.json')
  await rm(dynsecFile, { force: true })
  await promisify(execFile)('mosquitto_ctrl', ['dynsec', 'init', dynsecFile, DYNSEC_ADMIN, password])
  const conf = join(dir, 'mosquitto.conf')
  await writeFile(conf, [
    `listener ${port} 127.0.0.1`,
    'allow_anonymous false',
    `plugin ${PLUGIN}`,
    `plugin_opt_config_file ${dynsecFile}`,
    'persistence false',
    // Started as root, Mosquitto becomes the user `mosquitto`, who cannot read the temporary directory: it stays who
    // started it (ignored when not root).
    `user ${userInfo().username}`,
    ...tls === undefined ? [] : tlsListener(dir, tls.port, tls),
    ''
  ].join('\n'))
  const env = { ...process.env, MOSQUITTO_CONF: conf, BROKER_CA_FILE: tls?.bundleFile ?? '', BROKER_RELOAD_POLL_S: RELOAD_POLL_S }
  const child = tls === undefined ? spawn('mosquitto', ['-c', conf], { stdio: 'ignore' }) : spawn('sh', [START_SH], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let restarts = 0
  let tail = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    restarts += chunk.split('Mosquitto restarted').length - 1
    tail = (tail + chunk).slice(-2000)
  })
  let stopping = false
  // start.sh ending on its own leaves the test without a broker: say why in the test's output.
  child.once('exit', (code) => { if (!stopping && tls !== undefined) process.stderr.write(`test broker's start.sh exited (${String(code)}) after ${restarts} restarts:\n${tail}\n`) })
  const kill = async (): Promise<void> => {
    stopping = true
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      const exited = once(child, 'exit')
      process.kill(child.pid, 'SIGTERM')
      await exited
    }
  }
  try { await waitListening(port, password, child) } catch (err) { await kill(); throw err }
  return { kill, restarts: () => restarts }
}

/**
 * `port`: a port chosen beforehand (a service told of a broker that is not there yet); default: a free one.
 * `password`: the admin password, for a service configured before the broker starts; default: a new one.
 */
export async function startMosquitto (opts: { port?: number, password?: string, tls?: MosquittoTls } = {}): Promise<Mosquitto> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-mosquitto-'))
  const password = opts.password ?? adminPassword()
  // A broker under start.sh is restarted on its ports for every new bundle: ports no outgoing connection can be handed
  // meanwhile (a restart that finds its port in use ends start.sh, and the broker with it).
  const pick = opts.tls === undefined ? freePort : restartablePort
  let port = opts.port ?? await pick()
  let tlsPort = opts.tls === undefined ? undefined : await pick()
  let spawned: Spawned
  for (let attempt = 1; ; attempt++) {
    try {
      spawned = await spawnBroker(dir, port, password, opts.tls === undefined || tlsPort === undefined ? undefined : { ...opts.tls, port: tlsPort })
      break
    } catch (err) {
      if (!(err instanceof PortTaken) || opts.port !== undefined || attempt === 5) {
        await rm(dir, { recursive: true, force: true })
        throw err
      }
      port = await pick()
      if (tlsPort !== undefined) tlsPort = await pick()
    }
  }
  const clients: MqttClient[] = []
  const stop = async (): Promise<void> => {
    for (const c of clients.splice(0)) await c.endAsync(true)
    await spawned.kill()
    await rm(dir, { recursive: true, force: true })
  }

  const url = `mqtt://127.0.0.1:${port}`
  const admin = async (): Promise<MqttClient> => {
    const c = await mqtt.connectAsync(url, { username: DYNSEC_ADMIN, password, reconnectPeriod: 0 })
    clients.push(c)
    return c
  }
  let control: Promise<MqttClient> | undefined
  let seq = 0
  const waiting = new Map<string, (r: any) => void>()
  const controlClient = async (): Promise<MqttClient> => {
    control ??= (async () => {
      const c = await admin()
      // A broker restarted (start.sh, for a new bundle) closed it: the next command connects again.
      c.once('close', () => { control = undefined })
      c.on('message', (_t, p) => {
        for (const r of JSON.parse(p.toString()).responses ?? []) { const w = waiting.get(r.correlationData); if (w !== undefined) { waiting.delete(r.correlationData); w(r) } }
      })
      await c.subscribeAsync('$CONTROL/dynamic-security/v1/response')
      return c
    })()
    // A connection that failed (the broker restarting) is not kept: the next command tries again.
    control.catch(() => { control = undefined })
    return await control
  }
  return {
    port,
    tlsPort,
    restarts: spawned.restarts,
    url,
    adminUrl: `mqtt://${DYNSEC_ADMIN}:${password}@127.0.0.1:${port}`,
    admin,
    async dynsec (commands) {
      const c = await controlClient()
      const ids = commands.map(() => `test-${++seq}`)
      const answers = ids.map((id) => new Promise<any>((resolve) => { waiting.set(id, resolve) }))
      c.publish('$CONTROL/dynamic-security/v1', JSON.stringify({ commands: commands.map((x, i) => ({ ...x, correlationData: ids[i] })) }))
      // An answer lost with a connection (a restart for a new bundle) fails the call at once, so that the caller tries
      // again; an answer that never comes fails it after a while.
      let timer: NodeJS.Timeout | undefined
      let closed: (() => void) | undefined
      const late = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => { reject(new Error('no answer of dynamic security')) }, 5000)
        closed = () => { reject(new Error('connection closed before dynamic security answered')) }
        c.once('close', closed)
      })
      try { return await Promise.race([Promise.all(answers), late]) } finally {
        clearTimeout(timer)
        if (closed !== undefined) c.off('close', closed)
        for (const id of ids) waiting.delete(id)
      }
    },
    stop
  }
}

/** A device's connection attempt: the client when accepted, the refusal's message otherwise. */
export async function tryConnect (url: string, username: string, password: string, opts: IClientOptions = {}): Promise<MqttClient | string> {
  try {
    return await mqtt.connectAsync(url, { username, password, reconnectPeriod: 0, connectTimeout: 5000, ...opts })
  } catch (err) {
    return (err as Error).message
  }
}
