// Notices a change of the TLS files on disk (docs/security.md#tls). Certificate tools rarely write a file in place:
// they write a new one and rename it over the old (openssl scripts, certbot's symbolic links, a Kubernetes secret's
// `..data` link swapped in the folder), which a watch on the file itself would miss, since it follows the old inode.
// So the folder of each file is watched, and any change in it is reported once things have settled; the caller reads
// the files again and keeps what it had when they did not change.
import { watch, type FSWatcher } from 'node:fs'
import { dirname, resolve } from 'node:path'

export interface FileWatch { close (): void }

// A tool that writes the certificate, then the key, then renames both: one report for the lot.
const SETTLE_MS = 200

/** Calls onChange (debounced) when anything changes in the folders of `paths`. */
export function watchFiles (paths: readonly string[], onChange: () => void, onError: (err: Error) => void): FileWatch {
  let timer: NodeJS.Timeout | undefined
  const changed = (): void => {
    clearTimeout(timer)
    timer = setTimeout(onChange, SETTLE_MS)
  }
  const watchers: FSWatcher[] = []
  for (const dir of new Set(paths.map((p) => dirname(resolve(p))))) {
    try {
      const w = watch(dir, { persistent: false }, changed)
      w.on('error', onError)
      watchers.push(w)
    } catch (err) {
      onError(err as Error)
    }
  }
  return {
    close () {
      clearTimeout(timer)
      for (const w of watchers) w.close()
    }
  }
}
