// Generated bad values for the property-based input tests (docs/api.md#using-the-api): what broken clients and
// attackers put where a well-formed value goes. Strings for path and query parameters, any JSON for bodies, and
// bodies shaped after a route's JSON schema with one value made bad somewhere inside.
import fc from 'fast-check'

/** Texts that broke the service or commonly break services: NUL bytes, numbers no column holds, prototype keys. */
export const NASTY_TEXTS: readonly string[] = [
  '\u0000', 'a\u0000b', '%00', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf',
  '', ' ', '99999999999999999999', '-99999999999999999999', '1e309', '-1e309', 'NaN', 'Infinity', '-Infinity', '-1',
  '1.5', '0x10', '2147483648', '9007199254740993', 'null', 'true', '[]', '{}', '../../etc/passwd', '\' OR 1=1 --',
  '\uD800', '\uFFFF', '🚀', 'ä\u0301', '\u202Eevil', 'a,b,,c', ':', 'k:', ':v', 'x'.repeat(3000)
]

/** Numbers a JSON body can carry that no int4/bigint column or Date holds, and signs where none is expected. */
export const NASTY_NUMBERS: readonly number[] = [
  1e308, -1e308, 1e20, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 8.64e15 + 1, 1.5, -1, 0, Number.MIN_VALUE
]

/** Numbers as a query string carries them, for the parameters whose schema is a number. */
export const NASTY_NUMBER_TEXTS: readonly string[] = [
  '99999999999999999999', '-99999999999999999999', '1e309', '-1e309', 'NaN', 'Infinity', '-1', '1.5', '2147483648',
  '9007199254740993', '8.64e18', '1e19', '-1e19', '0x10', '1e3', ' 1', ''
]

export const badText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_TEXTS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map((s) => `${s}\u0000${s}`) }
)

/** A JSON text whose object has an own `__proto__` or `constructor.prototype` key (JSON.stringify cannot make one). */
const poisoned = fc.constantFrom('{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}')
  .map((text) => JSON.parse(text) as unknown)

export const badJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: badText },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(...NASTY_NUMBERS, null, true, false) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>([], {}) },
  { weight: 1, arbitrary: fc.array(badText, { minLength: 1, maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(badText, badText, { minKeys: 1, maxKeys: 2 }) },
  { weight: 1, arbitrary: poisoned }
)

/** A percent-encoded query value (lone surrogates become U+FFFD, as a client's UTF-8 encoder makes them). */
export function encodeQueryValue (s: string): string {
  let out = ''
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte)
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

export type JsonSchema = Record<string, any>

/** Bodies after a JSON schema (as the OpenAPI document gives it), `plausible` strings where a string goes. */
export class BodyArbitraries {
  constructor (private readonly components: Record<string, JsonSchema>, private readonly plausible: readonly string[]) {}

  private resolve (schema: JsonSchema): JsonSchema {
    const ref = schema.$ref
    if (typeof ref !== 'string') return schema
    return this.resolve(this.components[ref.replace(/^#\/components\/schemas\//, '')] ?? {})
  }

  /** A value the schema accepts, roughly: what sits beside the bad value so that validation gets that far. */
  good (schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema)
    const alternatives = s.anyOf ?? s.oneOf
    if (Array.isArray(alternatives) && alternatives.length > 0) return fc.oneof(...alternatives.map((a: JsonSchema) => this.good(a, depth)))
    if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...s.enum)
    if ('const' in s) return fc.constant(s.const)
    switch (s.type) {
      case 'string': return fc.constantFrom(...this.plausible)
      case 'integer': return fc.integer({ min: 0, max: 100 })
      case 'number': return fc.integer({ min: 0, max: 100 })
      case 'boolean': return fc.boolean()
      case 'null': return fc.constant(null)
      case 'array': return depth > 2 ? fc.constant([]) : fc.array(this.good(s.items ?? {}, depth + 1), { maxLength: 2 })
      case 'object': return this.object(s, depth)
      default: return fc.constant(null)
    }
  }

  /** An object with its required properties. */
  private object (s: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const required: string[] = depth > 2 ? [] : (s.required ?? []).filter((k: string) => s.properties?.[k] !== undefined)
    return fc.record(Object.fromEntries(required.map((k) => [k, this.good(s.properties[k], depth + 1)])))
  }

  /** A value of the schema with one bad value somewhere inside, or a bad value instead of the whole. */
  bad (schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema)
    const out: Array<fc.Arbitrary<unknown>> = [badJson]
    if (depth > 3) return badJson
    const keys = Object.keys(s.properties ?? {})
    if (keys.length > 0) {
      out.push(fc.constantFrom(...keys).chain((k) =>
        fc.tuple(this.object(s, depth), this.bad(s.properties[k], depth + 1)).map(([o, v]) => ({ ...o, [k]: v }))))
    }
    if (s.type === 'array' && s.items !== undefined) out.push(fc.array(this.bad(s.items, depth + 1), { minLength: 1, maxLength: 2 }))
    for (const a of [...(s.anyOf ?? []), ...(s.oneOf ?? [])] as JsonSchema[]) {
      const r = this.resolve(a)
      if (r.type === 'object' || r.type === 'array') out.push(this.bad(r, depth + 1))
    }
    return fc.oneof(...out)
  }
}
