// The AceManager HTTP API of ALEOS gateways, its bodies only (docs/protocols/msci.md A): the login XML, the read and
// write requests of Embedded_Ace_Get_Task / Embedded_Ace_Set_Task, and their `id=value!` answers. Pure: no I/O;
// a parser never throws on what a gateway sends (an answer it cannot read is refused with a reason).
import { isMsciId } from './ids.js'

export const CONNECT_PATH = '/xml/Connect.xml'
export const GET_PATH = '/cgi-bin/Embedded_Ace_Get_Task.cgi'
export const SET_PATH = '/cgi-bin/Embedded_Ace_Set_Task.cgi'

export type Parsed<T> = ({ ok: true } & T) | { ok: false, reason: string }

const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;')

/** §5.2 A.1: the password goes in CDATA; a `]]>` inside it is split across two sections so it cannot close it. */
export function loginBody (user: string, password: string): string {
  const cdata = `<![CDATA[${password.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`
  return `<request xmlns="urn:acemanager"><connect><login>${escapeXml(user)}</login><password>${cdata}</password></connect></request>`
}

/** The credentials of a login body (the simulated gateway's side); undefined when it is not one. */
export function parseLoginBody (body: string): { user: string, password: string } | undefined {
  const m = /^<request xmlns="urn:acemanager"><connect><login>([^<]*)<\/login><password>((?:<!\[CDATA\[[\s\S]*?\]\]>)+)<\/password><\/connect><\/request>$/.exec(body.trim())
  if (m === null) return undefined
  const unescape = (s: string): string => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, '\'').replace(/&amp;/g, '&')
  const password = [...(m[2] ?? '').matchAll(/<!\[CDATA\[([\s\S]*?)\]\]>/g)].map((c) => c[1] ?? '').join('')
  return { user: unescape(m[1] ?? ''), password }
}

/** §5.2 A.1: a reply containing `message='OK'` is a successful login. */
export function loginAccepted (reply: string): boolean {
  return /message\s*=\s*['"]OK['"]/.test(reply)
}

/** §5.2 A.2: the ids to read, comma separated. */
export function getBody (ids: readonly number[]): string {
  return ids.join(',')
}

/** The ids of a read request (the simulated gateway's side). */
export function parseGetBody (body: string): Parsed<{ ids: number[] }> {
  const parts = body.trim().split(',')
  const ids = parts.map((p) => /^\d{1,5}$/.test(p.trim()) ? Number(p.trim()) : NaN)
  if (parts.length === 0 || ids.some((id) => !isMsciId(id))) return { ok: false, reason: 'acemanager.bad.ids' }
  return { ok: true, ids }
}

// A value carries no `!` (it ends the pair); any other character, `=` included, is kept as it came.
const PAIR = /^(\d{1,5})=([^!]*)$/

/**
 * §5.2 A.2: `261=-71!259=Network Ready!` → pairs in answer order. The whole answer is refused when one piece is not
 * `<id>=<value>`: a gateway that answers garbage is counted, and nothing of its answer is stored.
 */
export function parseValues (body: string): Parsed<{ values: Array<[number, string]> }> {
  const text = body.replace(/\r?\n$/, '')
  if (text === '') return { ok: true, values: [] }
  if (!text.endsWith('!')) return { ok: false, reason: 'acemanager.unterminated' }
  const values: Array<[number, string]> = []
  for (const piece of text.slice(0, -1).split('!')) {
    const m = PAIR.exec(piece)
    const id = m === null ? NaN : Number(m[1])
    if (m === null || !isMsciId(id)) return { ok: false, reason: 'acemanager.bad.pair' }
    values.push([id, m[2] ?? ''])
  }
  return { ok: true, values }
}

/** Pairs in the `id=value!` form (the gateway's read answer, and the body of a write). */
export function formatValues (values: ReadonlyArray<readonly [number, string]>): string {
  return values.map(([id, v]) => `${id}=${v.replace(/!/g, '')}!`).join('')
}
