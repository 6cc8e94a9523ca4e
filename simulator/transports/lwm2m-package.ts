// How a simulated LwM2M client pulls a package from the URI the server wrote (5/0/1, 9/x/3): the simulator's
// downloader (devices/download.ts: HEAD, GET resumed with Range, 5 tries, the fleet's limiter), then the SHA-256 of
// the bytes against the link's ETag, as the MQTT agents check their swinstall downloads (the service tags its download
// links with the SHA-256 of their bytes, docs/packages.md#downloads). The package's name and version come from the
// file name the link announces (`name-1.2.3.bin` → name, 1.2.3), else from the URI's last segment and the digest.
import { download } from '../devices/download.js'
import type { SoftwareOptions } from '../devices/software.js'
import type { FetchedPackage, PackageFetch } from './lwm2m-firmware.js'

const taggedSha256 = (etag: string | undefined): string | undefined => /^"([0-9a-f]{64})"$/.exec(etag ?? '')?.[1]

/** `fw-2.1.0.bin` → { name: 'fw', version: '2.1.0' }; a name without a version gets the digest's first 12 digits. */
export function packageIdentity (filename: string | undefined, uri: string, sha256: string): { name: string, version: string } {
  const base = (filename ?? new URL(uri).pathname.split('/').pop() ?? '').replace(/\.(bin|zip|tar|tgz|tar\.gz|img|hex|pkg)$/i, '')
  const m = /^(.+?)[-_]v?(\d+(?:\.\d+)*(?:[-+][\w.]+)?)$/.exec(base)
  if (m !== null) return { name: m[1] ?? base, version: m[2] ?? '' }
  return { name: base === '' ? 'package' : base, version: sha256.slice(0, 12) }
}

/** The download of a package URI, checked, as the LwM2M objects want it. */
export function packageFetcher (o: SoftwareOptions = {}): PackageFetch {
  return async (uri): Promise<FetchedPackage> => {
    if (!URL.canParse(uri)) return { ok: false, failure: 'uri', message: `not a URI: ${uri}` }
    const got = await download(uri, o.download ?? {})
    if (!got.ok) return { ok: false, failure: o.download?.signal?.aborted === true ? 'stopped' : 'connection', message: got.message }
    const tagged = taggedSha256(got.etag)
    if (tagged !== undefined && tagged !== got.sha256) return { ok: false, failure: 'integrity', message: `SHA-256 mismatch: the bytes' is ${got.sha256}, the link's ETag says ${tagged}` }
    return { ok: true, ...packageIdentity(got.filename, uri, got.sha256) }
  }
}
