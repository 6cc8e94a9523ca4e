// The artifact store (docs/packages.md): the bytes of released binaries, kept by content (the key is the SHA-256 of
// the bytes, so a binary released twice is stored once). Files under DATA_DIR on the embedded parts; in a cluster a
// store every API process can serve (docs/decisions/0025-artifact-store.md).
import type { Readable } from 'node:stream'

export interface ArtifactInfo {
  /** The key to open it by: the lower-case hex SHA-256 of its bytes. */
  key: string
  size: number
  sha256: string
  md5: string
}

/** An inclusive byte range (HTTP Range semantics). */
export interface ByteRange { start: number, end: number }

export interface ArtifactStore {
  /**
   * Stores the bytes `source` yields, streamed (never held whole in memory), and answers their key and digests.
   * Refuses (throws ArtifactTooLarge, storing nothing) past `maxBytes`.
   */
  put (source: Readable, opts?: { maxBytes?: number }): Promise<ArtifactInfo>
  /** The size of a stored artifact; undefined when there is none with this key. */
  stat (key: string): Promise<{ size: number } | undefined>
  /** Streams the artifact's bytes, or the range of them; the stream honours backpressure. */
  open (key: string, range?: ByteRange): Promise<Readable>
  /** Removes it (nothing when absent). */
  delete (key: string): Promise<void>
}

export class ArtifactTooLarge extends Error {
  constructor (readonly maxBytes: number) { super(`artifact larger than ${maxBytes} bytes`) }
}

/** open() of a key the store does not hold (never put, or deleted). */
export class ArtifactNotFound extends Error {
  constructor (readonly key: string) { super(`no artifact ${key}`) }
}
