// One process at a time on an embedded store: PGlite keeps its files in a directory and two processes writing it
// corrupt it (an index out of step with its table). The lock is a file beside the store, created atomically
// (O_CREAT|O_EXCL), holding the pid and command of its holder so that a second process can say who has it. A lock
// left by a process that died (SIGKILL, power loss) names a pid that no longer runs: it is taken over.
import { linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync, closeSync } from 'node:fs'
import { hostname } from 'node:os'

export interface LockHolder { pid: number, command: string, host: string, since: string }

/** The directory is held by another live process. The message says by whom and what to do instead. */
export class StoreLockedError extends Error {
  constructor (readonly dir: string, readonly holder: LockHolder) {
    super(`the embedded store in ${dir} is in use by process ${holder.pid} (${holder.command}, since ${holder.since}): ` +
      'stop that process, or give this one another DATA_DIR, or set DATABASE_URL so that several processes share a PostgreSQL store')
    this.name = 'StoreLockedError'
  }
}

export interface DirLock { release (): void }

function readHolder (path: string): LockHolder | undefined {
  try {
    const h = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>
    return typeof h.pid === 'number' ? { pid: h.pid, command: String(h.command ?? '?'), host: String(h.host ?? ''), since: String(h.since ?? '?') } : undefined
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    // Half written (the holder died between create and write) or not ours: treat as abandoned.
    return { pid: 0, command: '?', host: '', since: '?' }
  }
}

/** Whether the holder still runs. A lock from another machine (a shared disk) is never assumed dead. */
function alive (h: LockHolder): boolean {
  if (h.host !== '' && h.host !== hostname()) return true
  if (h.pid <= 0) return false
  try {
    process.kill(h.pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' // it runs, under another user
  }
}

function tryCreate (path: string, me: LockHolder): boolean {
  let fd: number
  try { fd = openSync(path, 'wx') } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw err
  }
  try { writeSync(fd, JSON.stringify(me)) } finally { closeSync(fd) }
  return true
}

/**
 * Moves a dead holder's lock aside, atomically: of two processes taking over at once, one renames the stale file;
 * the other either finds nothing to rename or renames the winner's fresh lock, which it sees and puts back.
 */
function removeStale (path: string, stale: LockHolder): void {
  const aside = `${path}.stale-${process.pid}`
  try { renameSync(path, aside) } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
    throw err
  }
  const moved = readHolder(aside)
  if (moved !== undefined && moved.pid !== stale.pid && alive(moved)) {
    try { linkSync(aside, path) } catch { /* a third process holds it now: it stays the holder */ }
  }
  unlinkSync(aside)
}

/**
 * Takes the lock file at path for this process, released by release() or when the process exits.
 * @throws StoreLockedError when a live process holds it (this one included: one store, one owner)
 */
export function lockDir (path: string, dir: string): DirLock {
  const me: LockHolder = { pid: process.pid, command: ['node', ...process.argv.slice(1)].join(' '), host: hostname(), since: new Date().toISOString() }
  for (let attempt = 0; !tryCreate(path, me); attempt++) {
    const holder = readHolder(path)
    if (holder === undefined) continue // released meanwhile: try again
    if (alive(holder) || attempt >= 3) throw new StoreLockedError(dir, holder)
    removeStale(path, holder)
  }
  let held = true
  const release = (): void => {
    if (!held) return
    held = false
    process.off('exit', release)
    // Only our own lock: a file that is not (someone removed ours and took it) stays.
    if (readHolder(path)?.pid === process.pid) { try { unlinkSync(path) } catch { /* already gone */ } }
  }
  process.on('exit', release)
  return { release }
}
