// Sparkplug B codecs (docs/protocols/sparkplug.md): pure, no sockets, nothing of ours imported.
export { decodePayload } from './decode.js'
export { encodePayload, type OutgoingMetric, type OutgoingPayload } from './encode.js'
export { metricValue, datatypeFor, type ScalarValue } from './values.js'
export * from './topic.js'
export * from './types.js'
