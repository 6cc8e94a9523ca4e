// Registers simulated devices the way an installer would: an OAuth 2 token (docs/api.md#get-a-token), then
// POST /api/v1/systems with the gateway, the SIM and the protocol passwords (docs/api.md#systems).
import type { DeviceIdentity } from './devices/identity.js'

export interface ApiCredentials {
  /** Base URL of the service, e.g. http://localhost:8080. */
  url: string
  clientId: string
  clientSecret: string
  /** With email and password: the password grant; without: client_credentials (acts as the client's owner). */
  email?: string | undefined
  password?: string | undefined
}

export interface ApiClient {
  url: string
  token: string
  /**
   * A JSON request with the bearer token; 429 answers are retried after Retry-After (docs/api.md#using-the-api).
   * With a contentType the body is a string sent as it is (a CSV file).
   */
  request (method: string, path: string, body?: unknown, contentType?: string): Promise<{ status: number, json: unknown }>
}

export class ProvisionError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'ProvisionError'
  }
}

const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }
const MAX_RATE_RETRIES = 50

/** Gets an access token. @throws ProvisionError with the service's answer when it refuses. */
export async function connectApi (c: ApiCredentials): Promise<ApiClient> {
  const url = c.url.replace(/\/+$/, '')
  const form = new URLSearchParams({ client_id: c.clientId, client_secret: c.clientSecret })
  if (c.email !== undefined && c.password !== undefined) {
    form.set('grant_type', 'password')
    form.set('username', c.email)
    form.set('password', c.password)
  } else {
    form.set('grant_type', 'client_credentials')
  }
  let res: Response
  try {
    res = await fetch(`${url}/api/oauth/token`, { method: 'POST', body: form })
  } catch (err) {
    throw new ProvisionError(`cannot reach ${url}: ${(err as Error).message}`)
  }
  const text = await res.text()
  if (res.status !== 200) throw new ProvisionError(`token refused (${res.status}): ${text}`)
  const token = (JSON.parse(text) as { access_token: string }).access_token
  return {
    url,
    token,
    async request (method, path, body, contentType) {
      for (let attempt = 0; ; attempt++) {
        const r = await fetch(url + path, {
          method,
          headers: body === undefined ? { authorization: `Bearer ${token}` } : { authorization: `Bearer ${token}`, 'content-type': contentType ?? 'application/json' },
          ...(body === undefined ? {} : { body: contentType === undefined ? JSON.stringify(body) : String(body) })
        })
        const t = await r.text()
        // 429 (rate limit) and 503 (shed under load, or the store briefly lost) both mean nothing changed and
        // Retry-After says when to come back (docs/api.md#using-the-api).
        if ((r.status === 429 || r.status === 503) && attempt < MAX_RATE_RETRIES) {
          await sleep(1000 * Math.max(1, Number(r.headers.get('retry-after') ?? 1)))
          continue
        }
        return { status: r.status, json: t === '' ? null : JSON.parse(t) }
      }
    }
  }
}

export interface RegisterOptions {
  /** Labels of the created system (docs/api.md#systems), e.g. to find a run's devices again. */
  labels?: string[]
  type?: string
  /** The application the system runs (its firmware), linked by uid (docs/api.md#systems). */
  applicationUid?: string | undefined
  /**
   * The system's M3DA secret (docs/api.md#systems): `password`, the identity's M3DA password that the agent
   * signs with; `registrationPassword`, the same string as the one it auto-registers with (docs/protocols/m3da.md);
   * none (default): no M3DA secret, as for an agent without security.
   */
  m3da?: 'password' | 'registrationPassword' | 'none'
  /** The system's LwM2M DTLS key (`communication.lwm2m.pskSecretHex`, the identity being the endpoint name). */
  lwm2mPskHex?: string
}

/**
 * The uid of the application of this type in the catalogue the caller sees (`GET /api/v1/applications?type=`),
 * a public one first; undefined when there is none, and the device is registered without application.
 * The type filter matches "contains", so the exact type is checked here.
 */
export async function findApplication (api: ApiClient, type: string): Promise<string | undefined> {
  const res = await api.request('GET', `/api/v1/applications?type=${encodeURIComponent(type)}&size=500`)
  if (res.status !== 200) throw new ProvisionError(`looking up the ${type} application failed (${res.status}): ${JSON.stringify(res.json)}`)
  const items = ((res.json as { items?: unknown } | null)?.items ?? []) as Array<{ uid: string, type: string, public?: boolean }>
  const exact = items.filter((a) => a.type === type)
  return (exact.find((a) => a.public === true) ?? exact[0])?.uid
}

/**
 * Creates the device's system: gateway (serial number, IMEI), subscription (ICCID, operator UNKNOWN, mobile number),
 * the MQTT and REST passwords (and the M3DA one when asked) and, when given, its firmware application. Answers the system uid. @throws ProvisionError with the error code the service answered
 */
export async function registerDevice (api: ApiClient, id: DeviceIdentity, opts: RegisterOptions = {}): Promise<string> {
  const res = await api.request('POST', '/api/v1/systems', {
    name: id.serialNumber,
    type: opts.type ?? 'SIMULATOR',
    labels: opts.labels ?? ['simulator'],
    gateway: { serialNumber: id.serialNumber, imei: id.imei, type: 'SIMULATOR' },
    subscription: { identifier: id.iccid, operator: 'UNKNOWN', mobileNumber: id.mobileNumber },
    communication: {
      mqtt: { password: id.mqttPassword },
      rest: { password: id.restPassword },
      ...(opts.m3da === undefined || opts.m3da === 'none' ? {} : { m3da: { [opts.m3da]: id.m3daPassword } }),
      ...(opts.lwm2mPskHex === undefined ? {} : { lwm2m: { pskSecretHex: opts.lwm2mPskHex } })
    },
    ...(opts.applicationUid === undefined ? {} : { applications: [{ uid: opts.applicationUid }] })
  })
  if (res.status !== 200) throw new ProvisionError(`registering ${id.serialNumber} failed (${res.status}): ${JSON.stringify(res.json)}`)
  return (res.json as { uid: string }).uid
}
