// Bounds on the numbers of query strings and bodies: a value the store or a JavaScript Date cannot hold is refused
// by validation (400 request.invalid, naming the bound) instead of failing a statement (docs/api.md#using-the-api:
// bad input never answers 500). Ajv reads `1e309` as Infinity and `99999999999999999999` as an integer, so every
// numeric parameter needs an upper bound, not only a type.
import { Type, type TNumberOptions } from 'typebox'

/** docs/api.md#using-the-api: the index of the first item; PostgreSQL OFFSET takes a bigint, this keeps it an int4. */
export const MAX_OFFSET = 2_147_483_647

/**
 * docs/api.md#using-the-api: timestamps are epoch ms, and seconds (< 1e11) or microseconds (> 1e14) are
 * tolerated. ±8.64e18 µs is ±8.64e15 ms, the range of a JavaScript Date: every accepted value is a date.
 */
export const MAX_EPOCH = 8.64e18

export const Offset = (opts: TNumberOptions = {}) => Type.Integer({ minimum: 0, maximum: MAX_OFFSET, ...opts })

/** A timestamp of the query string or a body (epoch ms; seconds and microseconds tolerated). */
export const EpochTime = (opts: TNumberOptions = {}) => Type.Number({ minimum: -MAX_EPOCH, maximum: MAX_EPOCH, ...opts })

/** The same, where the schema asks for a whole number. */
export const EpochTimeInt = (opts: TNumberOptions = {}) => Type.Integer({ minimum: -MAX_EPOCH, maximum: MAX_EPOCH, ...opts })
