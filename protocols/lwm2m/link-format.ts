// CoRE Link Format (RFC 6690 §2): `</1/0>,</3/0>;ver=1.1,</>;rt="oma.lwm2m";ct="60 110"`. A link is a URI
// reference in angle brackets followed by `;name`, `;name=ptoken` or `;name="quoted string"` parameters, links
// separated by commas. Whitespace around separators, which some clients write, is tolerated. Bounded: MAX_LINKS
// links, MAX_LINK_ATTRIBUTES parameters each; never throws.
import { MAX_LINK_ATTRIBUTES, MAX_LINKS, MAX_PAYLOAD_BYTES, type Decoded } from './types.js'

export interface LinkAttribute {
  name: string
  /** Undefined for a parameter without value (`;obs`). */
  value?: string
  /** Written as a quoted string (kept from parsing; chosen when serializing if unset). */
  quoted?: boolean
}

export interface Link {
  /** The URI reference between the angle brackets, as written (`/3/0`). */
  target: string
  attributes: LinkAttribute[]
}

const INVALID = { ok: false, reason: 'lwm2m.link.invalid' } as const
// RFC 5987 attr-char (the parmname of RFC 6690), and the ptoken characters of RFC 6690.
const PARMNAME = /[A-Za-z0-9!#$&+\-.^_`|~]/
const PTOKEN = /[A-Za-z0-9!#$%&'()*+\-./:<=>?@[\]^_`{|}~]/
// What may not appear in a URI reference: its delimiters, whitespace, controls.
const isUriReference = (s: string): boolean => [...s].every((ch) => ch > ' ' && ch !== '\x7f' && !'<>"'.includes(ch))
const utf8 = new TextDecoder('utf-8', { fatal: true })

class Cursor {
  at = 0
  constructor (readonly s: string) {}
  get done (): boolean { return this.at >= this.s.length }
  peek (): string | undefined { return this.s[this.at] }
  skipSpace (): void { while (this.peek() === ' ' || this.peek() === '\t' || this.peek() === '\r' || this.peek() === '\n') this.at++ }
  take (re: RegExp): string {
    const start = this.at
    while (!this.done && re.test(this.s[this.at]!)) this.at++
    return this.s.slice(start, this.at)
  }
}

function quotedString (c: Cursor): string | undefined {
  c.at++ // the opening quote
  let out = ''
  while (!c.done) {
    const ch = c.s[c.at++]!
    if (ch === '"') return out
    if (ch === '\\') {
      if (c.done) return undefined
      out += c.s[c.at++]
    } else out += ch
  }
  return undefined // unterminated
}

function attribute (c: Cursor): LinkAttribute | undefined {
  c.skipSpace()
  const name = c.take(PARMNAME)
  if (name === '') return undefined
  if (c.peek() !== '=') return { name }
  c.at++
  if (c.peek() === '"') {
    const value = quotedString(c)
    return value === undefined ? undefined : { name, value, quoted: true }
  }
  const value = c.take(PTOKEN)
  return value === '' ? undefined : { name, value, quoted: false }
}

function link (c: Cursor): Link | undefined {
  c.skipSpace()
  if (c.peek() !== '<') return undefined
  const end = c.s.indexOf('>', c.at)
  if (end < 0) return undefined
  const target = c.s.slice(c.at + 1, end)
  if (!isUriReference(target)) return undefined
  c.at = end + 1
  const attributes: LinkAttribute[] = []
  for (c.skipSpace(); c.peek() === ';'; c.skipSpace()) {
    c.at++
    const a = attribute(c)
    if (a === undefined || attributes.length >= MAX_LINK_ATTRIBUTES) return undefined
    attributes.push(a)
  }
  return { target, attributes }
}

/** The links of a link-format payload (text or UTF-8 bytes); empty for an empty payload. */
export function parseLinkFormat (payload: string | Uint8Array): Decoded<{ links: Link[] }> {
  if (payload.length > MAX_PAYLOAD_BYTES) return { ok: false, reason: 'lwm2m.link.too.large' }
  let text: string
  try {
    text = typeof payload === 'string' ? payload : utf8.decode(payload)
  } catch {
    return INVALID
  }
  const c = new Cursor(text)
  c.skipSpace()
  const links: Link[] = []
  while (!c.done) {
    if (links.length >= MAX_LINKS) return { ok: false, reason: 'lwm2m.link.too.many' }
    const l = link(c)
    if (l === undefined) return INVALID
    links.push(l)
    if (c.peek() === ',') c.at++
    else if (!c.done) return INVALID
    else break
    c.skipSpace()
    if (c.done) return INVALID // a trailing comma
  }
  return { ok: true, links }
}

// RFC 6690 §3.1/§3.2: rt and if take a quoted list of types; LwM2M writes rt="oma.lwm2m".
const QUOTED_BY_DEFAULT = new Set(['rt', 'if', 'title', 'anchor'])

function formatAttribute (a: LinkAttribute): string {
  if (a.value === undefined) return `;${a.name}`
  const mustQuote = a.value === '' || ![...a.value].every((ch) => PTOKEN.test(ch))
  return mustQuote || (a.quoted ?? QUOTED_BY_DEFAULT.has(a.name))
    ? `;${a.name}="${a.value.replace(/(["\\])/g, '\\$1')}"`
    : `;${a.name}=${a.value}`
}

/** Link-format text for these links; a value that is no ptoken is quoted whatever `quoted` says. */
export function serializeLinkFormat (links: readonly Link[]): string {
  return links.map((l) => `<${l.target}>` + l.attributes.map(formatAttribute).join('')).join(',')
}

/** The value of a link's first attribute of this name: the text, true for a valueless one, undefined if absent. */
export function linkAttribute (l: Link, name: string): string | true | undefined {
  const a = l.attributes.find((x) => x.name === name)
  return a === undefined ? undefined : a.value ?? true
}
