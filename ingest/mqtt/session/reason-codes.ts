// The codes the MQTT edge answers with, by version: MQTT 3.1.1 has return codes in CONNACK and SUBACK only; MQTT 5
// has a reason code in every acknowledgement and in DISCONNECT (MQTT 5.0 §2.4).

/** MQTT 3.1.1 §3.2.2.3 CONNACK return codes (MQTT 3.1 has the same). */
export const RC4 = { accepted: 0, identifierRejected: 2, serverUnavailable: 3, badCredentials: 4, notAuthorized: 5 } as const

/** MQTT 3.1.1 §3.9.3: a refused subscription. */
export const RC4_SUBSCRIPTION_FAILURE = 0x80

/** MQTT 5.0 §2.4 reason codes used here. */
export const RC5 = {
  success: 0x00,
  /** DISCONNECT: the client asks for its Will to be published (MQTT 5.0 §3.14.2.1). */
  disconnectWithWill: 0x04,
  unspecified: 0x80,
  protocolError: 0x82,
  badCredentials: 0x86,
  notAuthorized: 0x87,
  serverUnavailable: 0x88,
  serverBusy: 0x89,
  keepAliveTimeout: 0x8d,
  sessionTakenOver: 0x8e,
  topicAliasInvalid: 0x94,
  messageRateTooHigh: 0x96,
  quotaExceeded: 0x97,
  payloadFormatInvalid: 0x99,
  qosNotSupported: 0x9b
} as const
