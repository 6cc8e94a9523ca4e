// The Code field (RFC 7252 §3, §12.1): class c (3 bits) and detail dd (5 bits), written "c.dd".

/** Builds a code from its class and detail. */
export const makeCode = (cls: number, detail: number): number => ((cls & 0x7) << 5) | (detail & 0x1f)
export const codeClass = (code: number): number => code >> 5
export const codeDetail = (code: number): number => code & 0x1f

/** "2.05" for 0x45. */
export function formatCode (code: number): string {
  return `${codeClass(code)}.${String(codeDetail(code)).padStart(2, '0')}`
}

/** The methods (§12.1.1, RFC 8132) and the response codes (§12.1.2, RFC 7959 §2.9) we name. */
export const CoapCode = {
  Empty: 0,
  GET: 1,
  POST: 2,
  PUT: 3,
  DELETE: 4,
  FETCH: 5,
  PATCH: 6,
  IPATCH: 7,
  Created: makeCode(2, 1),
  Deleted: makeCode(2, 2),
  Valid: makeCode(2, 3),
  Changed: makeCode(2, 4),
  Content: makeCode(2, 5),
  Continue: makeCode(2, 31),
  BadRequest: makeCode(4, 0),
  Unauthorized: makeCode(4, 1),
  BadOption: makeCode(4, 2),
  Forbidden: makeCode(4, 3),
  NotFound: makeCode(4, 4),
  MethodNotAllowed: makeCode(4, 5),
  NotAcceptable: makeCode(4, 6),
  RequestEntityIncomplete: makeCode(4, 8),
  Conflict: makeCode(4, 9),
  PreconditionFailed: makeCode(4, 12),
  RequestEntityTooLarge: makeCode(4, 13),
  UnsupportedContentFormat: makeCode(4, 15),
  InternalServerError: makeCode(5, 0),
  NotImplemented: makeCode(5, 1),
  BadGateway: makeCode(5, 2),
  ServiceUnavailable: makeCode(5, 3),
  GatewayTimeout: makeCode(5, 4),
  ProxyingNotSupported: makeCode(5, 5)
} as const

/** 0.00: an Empty message (§4.1). */
export const isEmptyCode = (code: number): boolean => code === 0
/** 0.01–0.31. */
export const isRequestCode = (code: number): boolean => code !== 0 && codeClass(code) === 0
/** 2.00–5.31. */
export const isResponseCode = (code: number): boolean => codeClass(code) >= 2 && codeClass(code) <= 5
/** 1.xx, 6.xx and 7.xx are reserved: a message carrying one is a format error (§4.2, §4.3). */
export const isReservedCode = (code: number): boolean => [1, 6, 7].includes(codeClass(code))
/** 2.xx. */
export const isSuccessCode = (code: number): boolean => codeClass(code) === 2
