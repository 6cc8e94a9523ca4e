// How a simulated M3DA agent talks to the service: where (TCP or HTTP, docs/protocols/m3da.md) and how it secures its
// envelopes (§2.8): not at all, with its password (HMAC-MD5 or HMAC-SHA1, optionally an AES cipher), or by
// auto-registering first with a registration password (§2.8.6) and then as with a password.

export type M3daMac = 'hmac-md5' | 'hmac-sha1'
export type M3daCipher = 'none' | 'aes-cbc-128' | 'aes-cbc-256' | 'aes-ctr-128' | 'aes-ctr-256'

export const M3DA_MACS: readonly M3daMac[] = ['hmac-md5', 'hmac-sha1']
export const M3DA_CIPHERS: readonly M3daCipher[] = ['none', 'aes-cbc-128', 'aes-cbc-256', 'aes-ctr-128', 'aes-ctr-256']

export type M3daSecurity =
  | { mode: 'none' }
  /** `password`: the system has the device's password; `autoreg`: only its registration password, until the exchange. */
  | { mode: 'password' | 'autoreg', mac: M3daMac, cipher: M3daCipher }

/** The server id both peers derive their keys with (docs/protocols/m3da.md; the service's M3DA_SERVER_ID). */
export const DEFAULT_SERVER_ID = 'AIRVANTAGE'
