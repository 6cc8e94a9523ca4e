// Reads the Lua table constructor of an update package's Manifest (docs/protocols/m3da.md#software-updates):
// `{version = "1.2", components = {{name = "app", version = "1.2", depends = {...}}}}`. Only what a Manifest writes:
// tables with `key = value`, `["key"] = value` and positional fields, strings in either quote, numbers, booleans, nil,
// and `--` comments; an optional `return` before it. Anything else is refused with where it stands.

export type LuaValue = string | number | boolean | null | LuaTable
export interface LuaTable { fields: Map<string, LuaValue>, items: LuaValue[] }

export class LuaSyntaxError extends Error {}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'" }

export function parseLuaTable (text: string): LuaTable {
  let i = 0
  const fail = (what: string): never => { throw new LuaSyntaxError(`${what} at character ${i + 1}`) }
  const skip = (): void => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i] ?? '')) i++
      if (!text.startsWith('--', i)) return
      const end = text.indexOf('\n', i)
      i = end < 0 ? text.length : end + 1
    }
  }
  const eat = (s: string): boolean => { skip(); if (!text.startsWith(s, i)) return false; i += s.length; return true }
  const str = (): string => {
    const quote = text[i]
    let out = ''
    for (i++; i < text.length && text[i] !== quote; i++) {
      const c = text[i] ?? ''
      if (c === '\n') fail('a string across lines')
      if (c === '\\') { i++; out += ESCAPES[text[i] ?? ''] ?? fail('an unknown escape') } else out += c
    }
    if (i >= text.length) fail('an unterminated string')
    i++
    return out
  }
  const value = (): LuaValue => {
    skip()
    const c = text[i] ?? ''
    if (c === '{') return table()
    if (c === '"' || c === "'") return str()
    const word = /^(?:-?(?:0x[0-9a-f]+|\d+(?:\.\d*)?(?:e[-+]?\d+)?)|true|false|nil)/i.exec(text.slice(i))?.[0]
    if (word === undefined) return fail('a value expected')
    i += word.length
    if (word === 'true' || word === 'false') return word === 'true'
    return word === 'nil' ? null : Number(word)
  }
  const table = (): LuaTable => {
    eat('{')
    const t: LuaTable = { fields: new Map(), items: [] }
    while (!eat('}')) {
      skip()
      const named = /^[A-Za-z_]\w*\s*=(?!=)/.exec(text.slice(i))
      if (named !== null) {
        i += named[0].length
        t.fields.set(named[0].replace(/\s*=$/, ''), value())
      } else if (eat('[')) {
        skip()
        const key = text[i] === '"' || text[i] === "'" ? str() : fail('a string key expected')
        if (!eat(']') || !eat('=')) fail('"] =" expected')
        t.fields.set(key, value())
      } else t.items.push(value())
      if (!eat(',') && !eat(';')) { if (!eat('}')) fail('"," or "}" expected'); break }
    }
    return t
  }
  eat('return')
  skip()
  if (text[i] !== '{') fail('a table expected')
  const t = table()
  skip()
  if (i < text.length) fail('text after the table')
  return t
}
