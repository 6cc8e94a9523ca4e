// M3DA objects (docs/protocols/m3da.md): envelopes, Messages, Responses, vectors. Pure: no I/O.
// The security extension (§2.8) lives in ./security/. Decoders never throw; they answer { ok: false, reason }.
export { ClassId, M3DA_CLASSES } from './classes.js'
export { decodeEnvelope, encodeEnvelope, EnvelopeReader, toEnvelope } from './envelope.js'
export type { Envelope, EnvelopeFields, EnvelopeResult, EnvelopeToEncode } from './envelope.js'
export { decodePayload, encodePayload } from './payload.js'
export type { M3daMessage, M3daObject, M3daResponse, MessageToEncode, PayloadResult } from './payload.js'
export { normalisePath } from './path.js'
export { deltasVector, expandDeltas, expandQuasiPeriodic, MAX_VECTOR_POINTS, quasiPeriodicVector } from './vectors.js'
