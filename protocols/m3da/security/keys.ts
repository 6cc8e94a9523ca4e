// M3DA security keys (docs/protocols/m3da.md): one password per device–server pair gives the
// encryption master key K and one authentication key per direction. Ids are hashed as their UTF-8 bytes.
import { createHash } from 'node:crypto'

/** The three keys of a device–server pair. */
export interface SessionKeys {
  /** K = MD5(password): the encryption master key (§2.8.5). */
  k: Buffer
  /** KD = MD5(deviceId ‖ K): signs what the device sends. */
  kd: Buffer
  /** KS = MD5(serverId ‖ K): signs what the server sends. */
  ks: Buffer
}

export function md5 (...parts: Array<Buffer | Uint8Array | string>): Buffer {
  const hash = createHash('md5')
  for (const part of parts) hash.update(part)
  return hash.digest()
}

/** K, KD and KS from the password (§2.8.1). */
export function deriveKeys (password: string | Buffer, deviceId: string, serverId: string): SessionKeys {
  return keysFromMasterKey(md5(password), deviceId, serverId)
}

// The server opens and seals every envelope of a device with the same three keys: they are derived once per
// password and kept (docs/protocols/m3da.md: six MD5s per exchange were a tenth of a secured package's cost). Bounded;
// the oldest entry leaves first. A new password is another entry, so nothing stale is ever answered.
const KEYS_CACHE_MAX = 10_000
const keysCache = new Map<string, SessionKeys>()

/**
 * deriveKeys, kept for the next envelope of the same device. The answer is shared: read it, never change it.
 * The cache key is length-prefixed so that no two (serverId, deviceId, password) triples share one.
 */
export function cachedKeys (password: string | Buffer, deviceId: string, serverId: string): SessionKeys {
  const secret = typeof password === 'string' ? `s${password}` : `b${password.toString('base64')}`
  const key = `${serverId.length}:${serverId}${deviceId.length}:${deviceId}${secret}`
  const hit = keysCache.get(key)
  if (hit !== undefined) return hit
  const keys = deriveKeys(password, deviceId, serverId)
  if (keysCache.size >= KEYS_CACHE_MAX) keysCache.delete(keysCache.keys().next().value as string)
  keysCache.set(key, keys)
  return keys
}

/**
 * KD and KS from K itself: after auto-registration the device learns K = MD5(newPassword), never the
 * password (§2.8.6), and the Mihini agent stores keys this way.
 */
export function keysFromMasterKey (k: Buffer, deviceId: string, serverId: string): SessionKeys {
  return { k, kd: md5(deviceId, k), ks: md5(serverId, k) }
}
