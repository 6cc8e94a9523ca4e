// For each context with opcodes (Global, UIS, Numbers, Lists & Maps), what each of the 256 first bytes means,
// built once from the forms of forms.ts (docs/protocols/m3da.md). An absent entry is a free opcode: invalid.
import { containerForms, intRanges, Op, stringForms, type ContainerKind, type Range } from './forms.js'
import { Ctx } from './types.js'

export type OpEntry =
  | { kind: 'null' | 'true' | 'false' | 'int32' | 'int64' | 'float32' | 'float64' | 'uint32' | 'chunked' | 'objectLong' }
  | { kind: 'int' | 'string', range: Range }
  | { kind: 'list' | 'map', typed: boolean, count: number } // count declared by the opcode
  | { kind: 'list' | 'map', typed: boolean, longOffset: number } // UIS count follows
  | { kind: 'list' | 'map', typed: boolean, unsized: true }
  | { kind: 'object', classId: number }
  | { kind: 'classDef', named: boolean }

export type OpTable = ReadonlyArray<OpEntry | undefined>

function build (ctx: Ctx): OpTable {
  const t = new Array<OpEntry | undefined>(256)
  t[Op.Null] = { kind: 'null' }
  for (const range of intRanges[ctx] ?? []) for (let i = 0; i < range.ops; i++) t[range.first + i] = { kind: 'int', range }
  const strings = stringForms[ctx]
  if (strings !== undefined) {
    for (const range of strings.ranges) for (let i = 0; i < range.ops; i++) t[range.first + i] = { kind: 'string', range }
    t[strings.chunked] = { kind: 'chunked' }
  }
  const containers = containerForms[ctx]
  if (containers !== undefined) {
    for (const [name, f] of Object.entries(containers) as Array<[ContainerKind, typeof containers.list]>) {
      const kind = name === 'list' || name === 'typedList' ? 'list' : 'map'
      const typed = name === 'typedList' || name === 'typedMap'
      for (let i = 0; i < f.shortCount; i++) t[f.short + i] = { kind, typed, count: i + f.offset }
      t[f.long] = { kind, typed, longOffset: f.longOffset }
      t[f.unsized] = { kind, typed, unsized: true }
    }
  }
  if (ctx === Ctx.Global) {
    t[Op.True] = { kind: 'true' }
    t[Op.False] = { kind: 'false' }
    for (let id = 0; id < 16; id++) t[Op.Object + id] = { kind: 'object', classId: id }
    t[Op.ObjectLong] = { kind: 'objectLong' }
    t[Op.ClassDefNamed] = { kind: 'classDef', named: true }
    t[Op.ClassDefShort] = { kind: 'classDef', named: false }
  }
  if (ctx === Ctx.Global || ctx === Ctx.Numbers) {
    t[Op.Int32] = { kind: 'int32' }
    t[Op.Int64] = { kind: 'int64' }
    t[Op.Float32] = { kind: 'float32' }
    t[Op.Float64] = { kind: 'float64' }
  }
  if (ctx === Ctx.UIS) t[Op.Uint32] = { kind: 'uint32' }
  return t
}

export const opTables: Partial<Record<Ctx, OpTable>> = {
  [Ctx.Global]: build(Ctx.Global),
  [Ctx.UIS]: build(Ctx.UIS),
  [Ctx.Numbers]: build(Ctx.Numbers),
  [Ctx.ListMap]: build(Ctx.ListMap)
}
