// Bysant serialization (docs/protocols/m3da.md): encoder, incremental decoder, value model.
// Pure: no I/O. Decoders never throw on input; they answer { ok: false, reason } (reasons: `bysant.*`).
export { Ctx, TypedList, TypedMap, bysantObject, isBysantObject, typedList, typedMap, unsizedList, unsizedMap } from './types.js'
export type { BysantObject, BysantValue, ClassDef, Encodable, EncodableObject, Entries, MapKey } from './types.js'
export { encode, encodeClassDef } from './encode.js'
export { BysantReader, decodeAll } from './reader.js'
export type { ReaderOptions, ReadResult } from './reader.js'
