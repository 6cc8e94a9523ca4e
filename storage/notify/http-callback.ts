import { promises as dns, type LookupAddress } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { SIGNATURE_HEADER, signBody, type CallbackResult, type CallbackSender } from '../../core/ports/notify.js'
import type { CallbackCheck, CallbackGuard } from '../../core/operations/callback-guard.js'
import { isForbiddenAddress } from '../../core/domain/network-addresses.js'

// docs/operations.md#bulk-operations: POST of the event as JSON, credentials of the URL as HTTP Basic
// auth, X-Fleet-Signature when a secret is configured, and no callbacks into loopback, link-local or private
// networks unless CALLBACK_ALLOW_PRIVATE is set.
//
// node:http(s) rather than fetch: its `lookup` option makes the socket connect to exactly the addresses that were
// checked (no second DNS answer can rebind the name to an internal address), and it never follows redirects,
// so a 3xx cannot lead to a forbidden address either (a 3xx is a retryable non-2xx answer). TLS still verifies
// the certificate against the URL's host name.

export interface HttpCallbackOptions {
  /** CALLBACK_SECRET: signs every body when set. */
  secret?: string | undefined
  /** CALLBACK_ALLOW_PRIVATE: lifts the refusal of loopback, link-local and private addresses. */
  allowPrivate: boolean
  /** Bound on one try: name resolution, connection, and the answer's status line and headers. */
  timeoutMs: number
  /** Name resolution (all addresses of a host); defaults to dns.lookup. Tests inject a fake resolver. */
  resolve?: (hostname: string) => Promise<LookupAddress[]>
}

interface Target { url: URL, host: string, authorization: string | undefined }

function parseTarget (raw: string): Target | string {
  let url: URL
  try { url = new URL(raw) } catch { return 'url.invalid' }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme ${url.protocol} not allowed`
  let authorization: string | undefined
  if (url.username !== '' || url.password !== '') {
    let user: string, password: string
    try {
      user = decodeURIComponent(url.username)
      password = decodeURIComponent(url.password)
    } catch { return 'url.invalid credentials' }
    authorization = `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`
    url.username = ''
    url.password = ''
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  return { url, host, authorization }
}

/** A lookup that answers only the addresses already resolved and checked, so the socket cannot go elsewhere. */
function pinnedLookup (addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses
    const list = wanted.length > 0 ? wanted : addresses
    if (options.all === true) callback(null, list)
    else callback(null, list[0]?.address ?? '', list[0]?.family ?? 4)
  }
}

class Timeout extends Error {}

function post (target: Target, addresses: LookupAddress[], headers: http.OutgoingHttpHeaders, body: string,
  signal: AbortSignal): Promise<CallbackResult> {
  const { url } = target
  const client = url.protocol === 'https:' ? https : http
  return new Promise((resolve) => {
    if (signal.aborted) { resolve({ outcome: 'retryable', reason: 'timeout' }); return }
    const req = client.request({
      protocol: url.protocol,
      hostname: target.host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers,
      agent: false, // one connection per try, closed after it: nothing pooled that skipped the address check
      lookup: pinnedLookup(addresses)
    })
    const onAbort = (): void => { req.destroy(new Timeout()) }
    signal.addEventListener('abort', onAbort, { once: true })
    req.once('response', (res) => {
      signal.removeEventListener('abort', onAbort)
      // The answer's body carries nothing for us, and draining it would let a receiver hold the socket open
      // forever: the connection (never reused, agent: false) is closed as soon as the status is known.
      res.once('error', () => {})
      res.destroy()
      const status = res.statusCode ?? 0
      if (status >= 200 && status < 300) resolve({ outcome: 'delivered', status })
      else resolve({ outcome: 'retryable', reason: `http ${status}`, status })
    })
    req.once('error', (err: NodeJS.ErrnoException) => {
      signal.removeEventListener('abort', onAbort)
      resolve({ outcome: 'retryable', reason: err instanceof Timeout ? 'timeout' : (err.code ?? err.message) })
    })
    req.end(body)
  })
}

function resolveWithin (lookup: (h: string) => Promise<LookupAddress[]>, host: string,
  signal: AbortSignal): Promise<LookupAddress[]> {
  if (isIP(host) !== 0) return Promise.resolve([{ address: host, family: isIP(host) }])
  return new Promise((resolve, reject) => {
    const onAbort = (): void => { reject(new Timeout()) }
    signal.addEventListener('abort', onAbort, { once: true })
    lookup(host).then(resolve, reject).finally(() => { signal.removeEventListener('abort', onAbort) })
  })
}

/**
 * The check of a callback URL when its operation is created (core/operations/callback-guard.ts), by the rules the
 * deliveries obey: an http(s) URL, and unless allowPrivate no host that is or resolves to a forbidden address. A
 * name that does not resolve now is accepted: delivery retries it, and checks it again each time.
 */
async function checkCallback (opts: HttpCallbackOptions, resolve: (host: string) => Promise<LookupAddress[]>, rawUrl: string): Promise<CallbackCheck> {
  const target = parseTarget(rawUrl)
  // The reason names the scheme or the fault, never the URL (its user information may hold a password).
  if (typeof target === 'string') return { ok: false, code: 'callback.invalid', params: ['callback', target] }
  if (opts.allowPrivate) return { ok: true }
  let addresses: LookupAddress[]
  try {
    addresses = await resolveWithin(resolve, target.host, AbortSignal.timeout(opts.timeoutMs))
  } catch {
    return { ok: true }
  }
  const bad = addresses.find((a) => isForbiddenAddress(a.address))
  return bad === undefined ? { ok: true } : { ok: false, code: 'callback.forbidden', params: [target.host, 'CALLBACK_ALLOW_PRIVATE'] }
}

/** The CallbackSender of the service: one POST per call, never throws; and the check of URLs at creation. */
export function createHttpCallbackSender (opts: HttpCallbackOptions): CallbackSender & CallbackGuard {
  const resolve = opts.resolve ?? ((host: string) => dns.lookup(host, { all: true }))
  return {
    async check (rawUrl) { return await checkCallback(opts, resolve, rawUrl) },
    async send (rawUrl, body) {
      const target = parseTarget(rawUrl)
      if (typeof target === 'string') return { outcome: 'refused', reason: target }
      const signal = AbortSignal.timeout(opts.timeoutMs)
      let addresses: LookupAddress[]
      try {
        addresses = await resolveWithin(resolve, target.host, signal)
      } catch (err) {
        // An unknown or unreachable name may come back (DNS outage, record not yet published): retry.
        const code = err instanceof Timeout ? 'timeout' : (err as NodeJS.ErrnoException).code ?? 'dns error'
        return { outcome: 'retryable', reason: `resolve ${target.host}: ${code}` }
      }
      if (addresses.length === 0) return { outcome: 'retryable', reason: `resolve ${target.host}: no address` }
      const bad = opts.allowPrivate ? undefined : addresses.find((a) => isForbiddenAddress(a.address))
      if (bad !== undefined) return { outcome: 'refused', reason: `forbidden address ${bad.address}` }
      const headers: http.OutgoingHttpHeaders = {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body, 'utf8'),
        'user-agent': 'fleet-callback/1'
      }
      if (target.authorization !== undefined) headers.authorization = target.authorization
      if (opts.secret !== undefined) headers[SIGNATURE_HEADER.toLowerCase()] = signBody(opts.secret, body)
      return await post(target, addresses, headers, body, signal)
    }
  }
}
