// CoAP (RFC 7252) with Observe (RFC 7641) and block-wise transfers (RFC 7959): a codec that never throws on input,
// an endpoint over any datagram transport. No socket: the UDP binding (udp.ts, node:dgram) is imported on its own.
// See README.md.
export { decodeMessage } from './decode.js'
export { encodeMessage, MAX_OPTION_EXTENDED } from './encode.js'
export { MessageType, coapMessage, type CoapMessage, type CoapOption, type DecodeRefusal, type DecodeResult } from './types.js'
export * from './codes.js'
export {
  OptionNumber, OPTION_RULES, type OptionFormat, isCritical, isUnsafe, isNoCacheKey, encodeUint, decodeUint, getOption, getOptions,
  getUintOption, hasOption, withOption, withoutOption, sortOptions, pathOptions, queryOptions, uriPathOf, uriQueryOf,
  findBadCriticalOption
} from './options.js'
export { blockSize, szxFor, encodeBlock, decodeBlock, readBlock, sliceBlock, splitPayload, MAX_BLOCK_NUM, MAX_SZX, type BlockValue } from './block.js'
export { BlockReassembler, DEFAULT_MAX_BODY, type ReassemblyResult, type ReassemblyRefusal } from './reassembler.js'
export { isFresher, nextObserveSeq, notificationMatches, OBSERVE_REGISTER, OBSERVE_DEREGISTER, OBSERVE_MODULUS, OBSERVE_REORDER_WINDOW_MS } from './observe.js'
export { CoapEndpoint, type EndpointOptions, type RequestOptions, type EndpointGauges } from './endpoint.js'
export { coapRequest, type OutgoingRequest, type OutgoingResponse, type RequestHandler, type Method, type RequestExtras } from './exchanges.js'
export type { Observation, ObserveCallbacks, ObserveEndReason } from './observations.js'
export type { ServedObserver, ObserverGoneReason } from './served-observers.js'
export type { NotifyOutcome } from './notifier.js'
export { CoapError, type CoapErrorCode } from './errors.js'
export { DEFAULT_PARAMS, DEFAULT_LIMITS, derivedTimes, type TransmissionParams, type EndpointLimits, type DerivedTimes } from './params.js'
export { realTimers, type Timers, type TimerHandle } from './timers.js'
export type { CoapCounters } from './counters.js'
