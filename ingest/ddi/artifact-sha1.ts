// The SHA-1 of a released binary, which DDI agents check after downloading (SWUpdate compares it and refuses the
// update on a mismatch) and the artifact store does not keep (it keys by SHA-256: core/ports/artifacts.ts). Computed
// once from the stored bytes when a deployment first names the binary, checked against the SHA-256 the task carries
// (a hash is never sent for other bytes than the task's), then kept in the module's table.
import { createHash } from 'node:crypto'
import type { ArtifactStore } from '../../core/ports/artifacts.js'
import type { DdiRepository } from './ddi.port.js'

export interface ArtifactSha1Deps {
  store: Pick<DdiRepository, 'sha1' | 'putSha1'>
  /** Absent: no binary can be offered (the deployment fails its task). */
  artifacts: Pick<ArtifactStore, 'open'> | undefined
  now: () => number
}

/** sha1(sha256): the SHA-1 of the stored bytes whose SHA-256 this is; undefined when the store has no such bytes. */
export function createArtifactSha1 ({ store, artifacts, now }: ArtifactSha1Deps): (sha256: string) => Promise<string | undefined> {
  // Controllers of a whole fleet ask for one new binary at once: it is read once per process.
  const running = new Map<string, Promise<string | undefined>>()

  async function compute (sha256: string): Promise<string | undefined> {
    if (artifacts === undefined) return undefined
    let stream
    try {
      stream = await artifacts.open(sha256)
    } catch {
      return undefined
    }
    const sha1 = createHash('sha1')
    const check = createHash('sha256')
    for await (const chunk of stream) {
      sha1.update(chunk as Buffer)
      check.update(chunk as Buffer)
    }
    if (check.digest('hex') !== sha256) return undefined
    const hex = sha1.digest('hex')
    await store.putSha1(sha256, hex, now())
    return hex
  }

  return async (sha256) => {
    const kept = await store.sha1(sha256)
    if (kept !== undefined) return kept
    let p = running.get(sha256)
    if (p === undefined) {
      p = compute(sha256).finally(() => running.delete(sha256))
      running.set(sha256, p)
    }
    return await p
  }
}
