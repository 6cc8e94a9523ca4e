// The Bysant value model (docs/protocols/m3da.md) and the wrappers that tell the encoder which form to write.

/** Context ids, one byte when written in a stream (docs/protocols/m3da.md). */
export const Ctx = { Global: 0, UIS: 1, Numbers: 2, Int32: 3, Float: 4, Double: 5, ListMap: 6 } as const
// The value and its type share the name on purpose (Ctx.Global in code, Ctx in signatures), as the API asks.
// eslint-disable-next-line @typescript-eslint/no-redeclare
export type Ctx = typeof Ctx[keyof typeof Ctx]

export const isCtx = (n: number): n is Ctx => Number.isInteger(n) && n >= 0 && n <= 6

/** An instance of a numbered class: its fields in class-definition order (docs/protocols/m3da.md). */
export interface BysantObject { classId: number, fields: BysantValue[] }

/**
 * A decoded value. Strings stay bytes (docs/protocols/m3da.md: the stream does not say which are text); integers are
 * numbers, or bigints outside the safe range (int64, §1.2 `FD`); map keys are UTF-8 text or unsigned integers.
 */
export type BysantValue =
  | null | boolean | number | bigint | Buffer
  | BysantValue[]
  | Map<string | number, BysantValue>
  | BysantObject

/** A class: its fields' contexts in order, and their names when it was defined with `71` (docs/protocols/m3da.md). */
export interface ClassDef { id: number, name?: string, fields: Array<{ name?: string, ctx: Ctx }> }

export type MapKey = string | number
export type Entries = Map<MapKey, Encodable> | { [k: string]: Encodable }

/**
 * A list written with a context byte for its items (`typedList`), or without declared length (`unsizedList`,
 * ctx null = untyped, items in Global).
 */
export class TypedList {
  constructor (readonly ctx: Ctx | null, readonly items: readonly Encodable[], readonly unsized: boolean) {}
}

/** A map whose values are written in one context (`typedMap`), or without declared length (`unsizedMap`). */
export class TypedMap {
  constructor (readonly ctx: Ctx | null, readonly entries: Entries, readonly unsized: boolean) {}
}

/**
 * What the encoder takes: every decoded value, plus JS strings (written as UTF-8), plain objects (string-keyed
 * maps) and the container wrappers. A BysantObject must come from `bysantObject()` (or the decoder): a plain
 * `{ classId, fields }` is a map like any other plain object.
 */
export type Encodable =
  | BysantValue | string | TypedList | TypedMap
  | readonly Encodable[]
  | Map<MapKey, Encodable>
  | EncodableObject
  | { [k: string]: Encodable }

export interface EncodableObject { classId: number, fields: readonly Encodable[] }

export const typedList = (ctx: Ctx, items: readonly Encodable[], opts: { unsized?: boolean } = {}): TypedList =>
  new TypedList(ctx, items, opts.unsized === true)

export const typedMap = (ctx: Ctx, entries: Entries, opts: { unsized?: boolean } = {}): TypedMap =>
  new TypedMap(ctx, entries, opts.unsized === true)

/** An untyped list ended by a null (`35` / ctx6 `3F`): it cannot hold null (docs/protocols/m3da.md). */
export const unsizedList = (items: readonly Encodable[]): TypedList => new TypedList(null, items, true)

/** An untyped map ended by the UIS null in key position (`4C` / ctx6 `C1`), the form real agents write. */
export const unsizedMap = (entries: Entries): TypedMap => new TypedMap(null, entries, true)

/** Objects are instances of this class, so that the encoder tells them from string-keyed maps at a glance. */
class ObjectValue<F> {
  constructor (public classId: number, public fields: F[]) {}
}

/** An object of class `classId`; fields in class-definition order. */
export function bysantObject<F extends Encodable> (classId: number, fields: F[]): { classId: number, fields: F[] } {
  return new ObjectValue(classId, fields)
}

export const isBysantObject = (v: unknown): v is EncodableObject => v instanceof ObjectValue
