// The interface document, docs/api.md, lives beside the repository (DEVELOPERS.md: `docs/`).
// Tests that check the code against it look there, and also further up for clones made elsewhere (a CI clone in
// a temporary directory); FLEET_SPEC_DIR names the directory outright. A missing spec fails the test, never skips it.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

function specDir (): string {
  const candidates = [
    process.env.FLEET_SPEC_DIR,
    join(ROOT, '../shared/spec'),
    join(ROOT, '../../shared/spec'),
    '/work/shared/spec'
  ].filter((d): d is string => d !== undefined && d !== '')
  const found = candidates.find((d) => existsSync(join(d, 'fleet-api.md')))
  if (found === undefined) throw new Error(`fleet-api.md not found in ${candidates.join(', ')}; set FLEET_SPEC_DIR`)
  return found
}

/** The text of a document of docs/, e.g. `docs/api.md`. */
export function readSpec (name: string): string {
  return readFileSync(join(specDir(), name), 'utf8')
}
