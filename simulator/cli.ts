// `fleet simulate`: runs a simulated fleet against a running service with a one-line progress display (see
// simulator/README.md). The defaults (URLs, credentials) come from the caller: bin/simulate.ts reads them from the
// service configuration.
import { parseArgs } from 'node:util'
import { DEFAULT_DOWNLOADS } from './devices/limiter.js'
import type { FleetOptions, FleetStats } from './fleet.js'
import { connectApi, ProvisionError } from './provision.js'
import { M3DA_CIPHERS, M3DA_MACS, type M3daSecurity } from './transports/m3da-options.js'
import type { UsagePlayStats } from './usage/player.js'
import { verificationLine, verifyStored } from './verify.js'

export interface SimulateDefaults {
  url: string
  mqttUrl: string
  /** tcp://host:$M3DA_PORT */
  m3daUrl?: string
  /** coap://host:$LWM2M_PORT; coaps://host:$LWM2MS_PORT is lwm2msUrl */
  lwm2mUrl?: string
  lwm2msUrl?: string
  clientId: string
  clientSecret: string | undefined
  email: string | undefined
  password: string | undefined
  /** The SMS gateway port when the service's SMS_GATEWAY_URL points at this machine (the receiver then listens there). */
  smsGatewayPort?: number | undefined
}

export interface SimulateIo {
  out: { write (s: string): unknown, isTTY?: boolean }
  /** Stops the run early (Ctrl-C). */
  signal?: AbortSignal
}

export const SIMULATE_USAGE = `usage: fleet simulate --devices N --protocol mqtt|rest|m3da|sparkplug|ddi|lwm2m [options]
  --devices N           number of simulated devices (registered through the API)
  --protocol P          mqtt, rest, m3da, sparkplug (Sparkplug B edge nodes on the MQTT broker) or ddi
                        (hawkBit DDI controllers polling the service's HTTP) or lwm2m (LwM2M clients over CoAP)
  --url URL             service HTTP URL (API and REST devices)          default http://localhost:$HTTP_PORT
  --mqtt-url URL        MQTT broker URL                                   default mqtt://localhost:$MQTT_PORT
  --mqtt-version V      4 (MQTT 3.1.1) or 5                               default 4
  --m3da-url URL        M3DA: tcp://host:port or http://host:port/device/com   default tcp://localhost:$M3DA_PORT
  --m3da-security S     M3DA: none, hmac-md5 or hmac-sha1                 default hmac-sha1
  --m3da-cipher C       M3DA: none, aes-cbc-128, aes-cbc-256, aes-ctr-128, aes-ctr-256   default none
  --m3da-autoreg        M3DA: register with a registration password only and auto-register (needs a MAC)
  --ddi-tenant T        DDI: the tenant, the company's uid or DEFAULT     default DEFAULT
  --lwm2m-url URL       LwM2M: coap://host:port, or coaps://host:port with --lwm2m-psk
                        default coap://localhost:5683 (coaps://localhost:5684 with --lwm2m-psk)
  --lwm2m-psk           LwM2M: DTLS with a random PSK per device (stored as communication.lwm2m.pskSecretHex)
  --lwm2m-queue         LwM2M: queue mode, reachable only a moment after each update (every --poll-period)
  --lwm2m-lifetime S    LwM2M: registration lifetime, updated at three quarters of it   default 300
  --lwm2m-version V     LwM2M: 1.1 or 1.0 (TLV and LwM2M JSON only)      default 1.1
  --rate R              messages per device per second (0: as fast as acks allow)   default 1
  --duration S          seconds of publishing                              default: until Ctrl-C
  --poll-period S       REST devices ask for their tasks, M3DA devices connect, every S seconds   default 5
  --failure-rate F      share of devices (0..1) that ack every task ERROR  default 0
  --reboot-seconds S    how long a reboot keeps a device off               default 1
  --update-failure-rate F  share of devices (0..1) that fail their installs once downloaded   default 0
  --download-cut-rate F    share of package requests (0..1) a device cuts, then resumes with Range   default 0
  --download-concurrency N package downloads in flight at once over the fleet   default 32
  --usage-feed          play the SIMs' usage feed (DATA sessions, SMS, calls, MSU) through the usage import
  --usage-period S      usage feed: import what the operator reported every S seconds   default 60
  --usage-days D        usage feed: the first import sends the last D days of history   default 1
  --usage-seed N        usage feed: the seed of its generator (the same seed, the same feed)   default: random
  --sms-gateway-port P  receive the service's SMS shoulder taps on port P (0: any free port);
                        set the service's SMS_GATEWAY_URL to the URL printed   default: the port of
                        $SMS_GATEWAY_URL when it names this machine
  --client-id ID        API client                                        default $FLEET_CLIENT_ID
  --client-secret S     its secret                                        default $FLEET_CLIENT_SECRET
  --email E             user for the password grant                       default $FLEET_ADMIN_EMAIL
  --password P          its password (without: client_credentials grant)  default $FLEET_ADMIN_PASSWORD`

export class UsageError extends Error {}

function positive (name: string, raw: string | undefined, fallback: number | undefined, integer: boolean): number | undefined {
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) throw new UsageError(`--${name} must be a ${integer ? 'whole ' : ''}number >= 0, got "${raw}"`)
  return n
}

const STRING_OPTIONS = ['devices', 'protocol', 'url', 'mqtt-url', 'mqtt-version', 'm3da-url', 'm3da-security', 'm3da-cipher', 'ddi-tenant', 'lwm2m-url', 'lwm2m-lifetime', 'lwm2m-version', 'rate', 'duration',
  'poll-period', 'failure-rate', 'reboot-seconds', 'update-failure-rate', 'download-cut-rate', 'download-concurrency', 'sms-gateway-port', 'client-id', 'client-secret', 'email', 'password',
  'usage-period', 'usage-days', 'usage-seed'] as const

/** A share of the fleet or of its requests, 0 to 1. @throws UsageError */
function share (name: string, raw: string | undefined): number {
  const rate = positive(name, raw, 0, false) ?? 0
  if (rate > 1) throw new UsageError(`--${name} must be between 0 and 1, got "${raw ?? ''}"`)
  return rate
}

/** The software flags: who fails installs, how downloads go (simulator/README.md "Software"). @throws UsageError */
function softwareOptions (values: Partial<Record<typeof STRING_OPTIONS[number], string>>): Pick<FleetOptions, 'updateFailureRate' | 'downloadCutRate' | 'downloadConcurrency'> {
  const concurrency = positive('download-concurrency', values['download-concurrency'], DEFAULT_DOWNLOADS, true) ?? DEFAULT_DOWNLOADS
  if (concurrency < 1) throw new UsageError('--download-concurrency must be at least 1')
  return { updateFailureRate: share('update-failure-rate', values['update-failure-rate']), downloadCutRate: share('download-cut-rate', values['download-cut-rate']), downloadConcurrency: concurrency }
}

/** The M3DA options of the command line (simulator/transports/m3da-options.ts). @throws UsageError */
function m3daSecurity (mac: string | undefined, cipher: string | undefined, autoreg: boolean): M3daSecurity {
  if (mac === 'none') {
    if (autoreg || (cipher !== undefined && cipher !== 'none')) throw new UsageError('--m3da-autoreg and --m3da-cipher need --m3da-security hmac-md5 or hmac-sha1')
    return { mode: 'none' }
  }
  const m = M3DA_MACS.find((x) => x === (mac ?? 'hmac-sha1'))
  if (m === undefined) throw new UsageError(`--m3da-security must be none, ${M3DA_MACS.join(' or ')}, got "${mac ?? ''}"`)
  const c = M3DA_CIPHERS.find((x) => x === (cipher ?? 'none'))
  if (c === undefined) throw new UsageError(`--m3da-cipher must be one of ${M3DA_CIPHERS.join(', ')}, got "${cipher ?? ''}"`)
  return { mode: autoreg ? 'autoreg' : 'password', mac: m, cipher: c }
}

type Values = Partial<Record<typeof STRING_OPTIONS[number], string>> & { 'lwm2m-queue'?: boolean, 'lwm2m-psk'?: boolean }

/** The LwM2M flags (simulator/README.md "LwM2M devices"). @throws UsageError */
function lwm2mOptions (values: Values, d: SimulateDefaults): Pick<FleetOptions, 'lwm2mUrl' | 'lwm2m'> {
  const psk = values['lwm2m-psk'] === true
  const version = values['lwm2m-version'] ?? '1.1'
  if (version !== '1.0' && version !== '1.1') throw new UsageError(`--lwm2m-version must be 1.0 or 1.1, got "${version}"`)
  const lifetime = positive('lwm2m-lifetime', values['lwm2m-lifetime'], 300, true) ?? 300
  if (lifetime < 1) throw new UsageError('--lwm2m-lifetime must be at least 1 second')
  const url = values['lwm2m-url'] ?? (psk ? d.lwm2msUrl ?? 'coaps://localhost:5684' : d.lwm2mUrl ?? 'coap://localhost:5683')
  if (!url.startsWith(psk ? 'coaps://' : 'coap://')) throw new UsageError(psk ? '--lwm2m-psk needs a coaps:// --lwm2m-url' : 'a coaps:// --lwm2m-url needs --lwm2m-psk')
  return { lwm2mUrl: url, lwm2m: { psk, queue: values['lwm2m-queue'] === true, lifetime, version } }
}

/** The usage feed flags (simulator/README.md "Usage feed"); undefined without --usage-feed. @throws UsageError */
function usageFeed (values: Partial<Record<typeof STRING_OPTIONS[number], string>> & { 'usage-feed'?: boolean }): FleetOptions['usage'] {
  if (values['usage-feed'] !== true) {
    const stray = (['usage-period', 'usage-days', 'usage-seed'] as const).find((k) => values[k] !== undefined)
    if (stray !== undefined) throw new UsageError(`--${stray} needs --usage-feed`)
    return undefined
  }
  const periodS = positive('usage-period', values['usage-period'], 60, false) ?? 60
  if (periodS === 0) throw new UsageError('--usage-period must be more than 0 seconds')
  const days = positive('usage-days', values['usage-days'], 1, false) ?? 1
  const seed = positive('usage-seed', values['usage-seed'], undefined, true) ?? Math.floor(Math.random() * 2 ** 32)
  if (seed >= 2 ** 32) throw new UsageError(`--usage-seed must be below 2^32, got "${values['usage-seed'] ?? ''}"`)
  return { periodMs: periodS * 1000, historyMs: days * 86_400_000, seed }
}

/**
 * `--devices -3` as `--devices=-3`: node's parser takes a value that starts with a dash for a forgotten value and
 * answers "ambiguous"; a negative number after a flag of ours is a value, which the checks below then refuse in words.
 */
function negativeValuesJoined (argv: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? ''
    const next = argv[i + 1]
    if ((STRING_OPTIONS as readonly string[]).includes(a.slice(2)) && a.startsWith('--') && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`)
      i++
    } else out.push(a)
  }
  return out
}

/** Reads the command line into fleet options. @throws UsageError */
export function parseSimulateArgs (argv: string[], d: SimulateDefaults): FleetOptions {
  let values
  try {
    values = parseArgs({
      args: negativeValuesJoined(argv),
      options: {
        ...Object.fromEntries(STRING_OPTIONS.map((k) => [k, { type: 'string' as const }])) as Record<typeof STRING_OPTIONS[number], { type: 'string' }>,
        'm3da-autoreg': { type: 'boolean' as const },
        'lwm2m-queue': { type: 'boolean' as const },
        'lwm2m-psk': { type: 'boolean' as const },
        'usage-feed': { type: 'boolean' as const }
      }
    }).values
  } catch (err) { throw new UsageError((err as Error).message) }
  if (values.devices === undefined) throw new UsageError('--devices N (at least 1) is required')
  const devices = Number(values.devices)
  if (!Number.isInteger(devices) || devices < 1) throw new UsageError(`--devices must be a positive integer, got "${values.devices}"`)
  const protocol = values.protocol
  if (protocol !== 'mqtt' && protocol !== 'rest' && protocol !== 'm3da' && protocol !== 'sparkplug' && protocol !== 'ddi' && protocol !== 'lwm2m') throw new UsageError('--protocol must be mqtt, rest, m3da, sparkplug or lwm2m, or ddi for hawkBit DDI controllers')
  const version = values['mqtt-version'] ?? '4'
  if (version !== '4' && version !== '5') throw new UsageError('--mqtt-version must be 4 or 5')
  const clientSecret = values['client-secret'] ?? d.clientSecret
  if (clientSecret === undefined) {
    throw new UsageError('the simulator registers its devices through the API and needs the API client\'s secret: set FLEET_CLIENT_SECRET ' +
      'or pass --client-secret (the "client secret (shown once)" the service printed at its first start)')
  }
  const password = values.password ?? d.password
  const failureRate = share('failure-rate', values['failure-rate'])
  const pollS = positive('poll-period', values['poll-period'], 5, false) ?? 5
  if (pollS === 0) throw new UsageError('--poll-period must be more than 0 seconds')
  const smsPort = positive('sms-gateway-port', values['sms-gateway-port'], undefined, true)
  if (smsPort !== undefined && smsPort > 65535) throw new UsageError(`--sms-gateway-port must be a port number, got "${values['sms-gateway-port'] ?? ''}"`)
  return {
    api: { url: values.url ?? d.url, clientId: values['client-id'] ?? d.clientId, clientSecret, email: password === undefined ? undefined : values.email ?? d.email, password },
    devices,
    protocol,
    mqttUrl: values['mqtt-url'] ?? d.mqttUrl,
    mqttVersion: version === '5' ? 5 : 4,
    m3daUrl: values['m3da-url'] ?? d.m3daUrl,
    m3daSecurity: m3daSecurity(values['m3da-security'], values['m3da-cipher'], values['m3da-autoreg'] === true),
    ddiTenant: values['ddi-tenant'] ?? 'DEFAULT',
    ...(protocol === 'lwm2m' ? lwm2mOptions(values, d) : {}),
    reconnectPeriod: 1000,
    rate: positive('rate', values.rate, 1, false) ?? 1,
    durationS: positive('duration', values.duration, undefined, false),
    taskPollMs: pollS * 1000,
    failureRate,
    rebootMs: (positive('reboot-seconds', values['reboot-seconds'], 1, false) ?? 1) * 1000,
    smsGatewayPort: smsPort ?? d.smsGatewayPort,
    ...softwareOptions(values),
    usage: usageFeed(values)
  }
}

/** The progress line: what is connected, how fast acknowledged messages come, what was answered. */
export function progressLine (s: FleetStats, perSecond: number, elapsedS: number): string {
  const t = `[${elapsedS.toFixed(0).padStart(4)}s]`
  if (s.phase === 'starting') return `${t} registering and connecting: ${s.registered}/${s.devices} devices, ${s.errors} errors`
  const err = s.errors === 0 ? '0 errors' : `${s.errors} errors (last: ${s.lastError ?? ''})`
  const failed = s.tasksFailed === 0 ? '' : ` (${s.tasksFailed} ERROR)`
  const woken = s.wakes === 0 ? '' : ` | ${s.wakes} woken`
  const downloads = (s.downloading ?? 0) + (s.downloadsWaiting ?? 0) === 0 ? '' : ` | ${s.downloading ?? 0} downloading${s.downloadsWaiting === 0 ? '' : ` (${s.downloadsWaiting ?? 0} waiting)`}`
  const usage = s.usage === undefined ? '' : ` | usage ${s.usage.records} records${s.usage.failed === 0 ? '' : ` (${s.usage.failed} failed)`}`
  return `${t} ${s.connected}/${s.devices} connected | ${perSecond.toFixed(0)} msg/s | ${s.messages} acked | ${s.tasksAnswered} tasks answered${failed}${woken}${downloads}${usage} | ${err}`
}

/** What the usage feed imported; rows that failed or records never taken make the run fail. */
export function usageSummary (u: UsagePlayStats): string {
  const held = u.held === 0 ? '' : `, ${u.held} not sent (last error: ${u.lastError ?? ''})`
  const failed = u.failed === 0 ? '' : ' (see GET /api/v1/operations/{uid}/file of the imports)'
  return `usage feed (seed ${u.seed}): ${u.records} records imported in ${u.files} file${u.files === 1 ? '' : 's'}, ${u.failed} rows failed${failed}${held}`
}

/** The first device that could not be registered or connected, with where its link was pointed. */
export function startFailureLine (err: Error, opts: Pick<FleetOptions, 'protocol' | 'mqttUrl' | 'm3daUrl' | 'lwm2mUrl'>): string {
  const where = opts.protocol === 'mqtt' || opts.protocol === 'sparkplug'
    ? `: is ${opts.mqttUrl ?? '?'} this service's MQTT (its MQTT_PORT; --mqtt-url)?`
    : opts.protocol === 'm3da'
      ? `: is ${opts.m3daUrl ?? '?'} this service's M3DA (its M3DA_PORT; --m3da-url)?`
      : opts.protocol === 'lwm2m' ? `: is ${opts.lwm2mUrl ?? '?'} this service's LwM2M (its LWM2M_PORT or LWM2MS_PORT; --lwm2m-url)?` : ''
  return `simulate: a device failed to start, the run stops: ${err.message}${err instanceof ProvisionError ? '' : where}`
}

/** Runs the simulator; answers the process exit code. */
export async function runSimulateCli (argv: string[], defaults: SimulateDefaults, io: SimulateIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) { io.out.write(SIMULATE_USAGE + '\n'); return 0 }
  const opts = parseSimulateArgs(argv, defaults)
  // Loaded once the arguments are sound: the help and a usage error load no device transport (MQTT, M3DA, Sparkplug).
  const { startFleet } = await import('./fleet.js')
  const tty = io.out.isTTY === true
  const fleet = startFleet({ ...opts, onStartFailure: (err) => { io.out.write(`${tty ? '\r\x1b[K' : ''}${startFailureLine(err, opts)}\n`) } })
  const started = Date.now()
  let last = { at: started, messages: 0 }
  let ended = false
  const show = (): void => {
    const s = fleet.stats()
    const now = Date.now()
    const rate = (s.messages - last.messages) / Math.max(0.001, (now - last.at) / 1000)
    last = { at: now, messages: s.messages }
    const line = progressLine(s, rate, (now - started) / 1000)
    io.out.write(tty ? `\r${line}\x1b[K` : line + '\n')
  }
  const ticker = setInterval(show, 1000)
  io.signal?.addEventListener('abort', () => { if (!ended) fleet.stop().catch(() => {}) }, { once: true })
  let runStart = 0
  fleet.ready.then(() => {
    runStart = Date.now()
    if (fleet.smsGatewayUrl !== undefined) io.out.write(`${tty ? '\r\x1b[K' : ''}SMS gateway for the service: SMS_GATEWAY_URL=${fleet.smsGatewayUrl}\n`)
  }, () => {})
  try {
    await fleet.done
  } finally {
    ended = true
    clearInterval(ticker)
  }
  const s = fleet.stats()
  const seconds = runStart === 0 ? 0 : (Date.now() - runStart) / 1000
  if (tty) io.out.write('\n')
  if (s.registered < s.devices && s.lastError !== undefined) {
    io.out.write(`simulate: stopped after registering ${s.registered}/${s.devices} devices: ${s.lastError}\n`)
    return 1
  }
  io.out.write(`done (run ${fleet.run}, label sim-${fleet.run}): ${s.devices} ${opts.protocol.toUpperCase()} devices, ${s.messages} messages ` +
    `(${s.points} points) acknowledged in ${seconds.toFixed(1)} s (${(s.messages / Math.max(seconds, 0.001)).toFixed(1)} msg/s), ` +
    `${s.tasksAnswered} tasks answered${s.tasksFailed === 0 ? '' : ` (${s.tasksFailed} ERROR)`}, ${s.errors} errors\n`)
  if (s.usage !== undefined) io.out.write(usageSummary(s.usage) + '\n')
  const usageOk = s.usage === undefined || (s.usage.failed === 0 && s.usage.held === 0)
  // An LwM2M device's data message is only what its observers were notified of (none when nothing observes it):
  // there is no count of sent messages to check against.
  if (opts.protocol === 'lwm2m') return usageOk ? 0 : 1
  // Acknowledged is not stored until the service says so (simulator/verify.ts).
  try {
    const v = await verifyStored(await connectApi(opts.api), fleet.devices.map((d) => d.systemUid), s.messages)
    io.out.write(verificationLine(v, { protocol: opts.protocol, url: opts.api.url, mqttUrl: opts.mqttUrl }) + '\n')
    return v.ok && usageOk ? 0 : 1
  } catch (err) {
    io.out.write(`verification failed: cannot read the messages back through ${opts.api.url}: ${(err as Error).message}\n`)
    return 1
  }
}
