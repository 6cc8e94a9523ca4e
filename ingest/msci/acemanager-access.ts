// AceManager HTTP access to an AirLink gateway (docs/protocols/msci.md A): log in (the session cookie is kept for the
// conversation), read with Embedded_Ace_Get_Task, write with Embedded_Ace_Set_Task (`id=value!` pairs, the form of
// the read answer; the reply's format is [U], so a 2xx status is the gateway's yes and any other its no).
// The credentials travel in the login body only; errors name the step and the status, never the body.
import {
  CONNECT_PATH, GET_PATH, SET_PATH, formatValues, getBody, loginAccepted, loginBody, parseValues
} from '../../protocols/msci/acemanager.js'
import { MsciError, type GatewayAccess, type RawValue } from './access.js'
import type { AccessParams } from './params.js'

/** Longest answer read: an AceManager answer of a few hundred ids is a few KiB; more is not a gateway's. */
const MAX_BODY = 256 * 1024

/** The body as text, or garbage when it is longer than MAX_BODY. */
async function readText (res: Response): Promise<string> {
  const reader = res.body?.getReader()
  if (reader === undefined) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY) {
      await reader.cancel().catch(() => {})
      throw new MsciError('garbage', 'AceManager answer too long')
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

export function acemanagerAccess (p: AccessParams, timeoutMs: number): GatewayAccess {
  const host = p.host.includes(':') ? `[${p.host}]` : p.host
  const base = `http://${host}:${p.port}`
  let cookie: string | undefined
  const controller = new AbortController()

  async function post (path: string, body: string, contentType: string): Promise<{ status: number, text: string, res: Response }> {
    let res: Response
    try {
      res = await fetch(base + path, {
        method: 'POST',
        body,
        headers: { 'content-type': contentType, ...(cookie === undefined ? {} : { cookie }) },
        redirect: 'manual',
        signal: AbortSignal.any([controller.signal, AbortSignal.timeout(timeoutMs)])
      })
    } catch {
      throw new MsciError('unreachable', `no AceManager answer in time (${path})`)
    }
    try {
      return { status: res.status, text: await readText(res), res }
    } catch (err) {
      if (err instanceof MsciError) throw err
      throw new MsciError('unreachable', `AceManager answer cut short (${path})`)
    }
  }

  async function login (): Promise<void> {
    if (cookie !== undefined) return
    const { status, text, res } = await post(CONNECT_PATH, loginBody(p.user, p.password), 'text/xml')
    if (status === 401 || status === 403 || (status >= 200 && status < 300 && !loginAccepted(text))) {
      throw new MsciError('denied', 'the gateway refused the AceManager login')
    }
    if (status < 200 || status >= 300) throw new MsciError('garbage', `AceManager login answered HTTP ${status}`)
    const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]?.trim() ?? '').filter((c) => /^[^=\s]+=/.test(c))
    cookie = cookies.length === 0 ? '' : cookies.join('; ')
  }

  return {
    async read (ids) {
      await login()
      const { status, text } = await post(GET_PATH, getBody(ids), 'text/plain')
      if (status === 401 || status === 403) throw new MsciError('denied', 'the gateway refused the AceManager session')
      if (status < 200 || status >= 300) throw new MsciError('garbage', `AceManager read answered HTTP ${status}`)
      const parsed = parseValues(text)
      if (!parsed.ok) throw new MsciError('garbage', `AceManager read answer: ${parsed.reason}`)
      const asked = new Set(ids)
      const out = new Map<number, RawValue>()
      for (const [id, v] of parsed.values) if (asked.has(id)) out.set(id, v)
      return out
    },
    async write (values) {
      await login()
      const { status } = await post(SET_PATH, formatValues(values.map(([id, v]) => [id, String(v)])), 'text/plain')
      if (status === 401 || status === 403) throw new MsciError('denied', 'the gateway refused the AceManager session')
      if (status < 200 || status >= 300) throw new MsciError('refused', `AceManager refused the write (HTTP ${status})`)
    },
    close () {
      controller.abort()
    }
  }
}
