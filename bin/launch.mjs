// Which code `fleet` runs (docs/decisions/0014-a-build.md): the compiled JavaScript of dist/ (plain node, a start
// without tsx's seconds of loading), or, in a checkout whose TypeScript is newer than its build (a developer editing
// it) or that has none, the TypeScript through tsx when tsx is installed. Plain JavaScript: it runs before either.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'

// The launcher is no source of the build (copied into an image on its own, its time is the copy's).
const LAUNCHER = new Set(['fleet.mjs', 'launch.mjs', 'launch.d.mts'].map((name) => join('bin', name)))

/** The newest modification time (ms) of a file under path, stopping early at one newer than limit. */
function newestUnder (path, limit, root) {
  if (LAUNCHER.has(relative(root, path))) return 0
  let stat
  try { stat = statSync(path) } catch { return 0 }
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = 0
  for (const name of readdirSync(path)) {
    newest = Math.max(newest, newestUnder(join(path, name), limit, root))
    if (newest > limit) break
  }
  return newest
}

/**
 * The state of root's build: `current` when dist/ holds one at least as new as every source it lists (dist/.built,
 * written by scripts/build.mjs as the build starts), else `stale` or `none` with why, as the note a user reads.
 * Sources that are absent (an image with dist/ only) are not newer.
 */
export function buildState (root) {
  let built, stamp
  try {
    const path = join(root, 'dist', '.built')
    stamp = JSON.parse(readFileSync(path, 'utf8'))
    built = statSync(path).mtimeMs
  } catch {
    return { build: 'none', why: 'dist/ holds no build' }
  }
  for (const path of [...stamp.sources, ...stamp.files]) {
    if (newestUnder(join(root, path), built, root) > built) return { build: 'stale', why: `${path} is newer than dist/` }
  }
  return { build: 'current' }
}

/** Whether tsx can be loaded from root (a development install; `npm ci --omit=dev` has none). */
export function hasTsx (root) {
  try {
    createRequire(join(root, 'package.json')).resolve('tsx/package.json')
    return true
  } catch { return false }
}
