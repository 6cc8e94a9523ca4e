// CPU time of the PostgreSQL server's processes on this machine (Linux /proc), so that `bench ingest` can say what
// the store costs per message beside the service and the devices: on a machine of two cores, the three share them.
// Undefined where it cannot be read (another OS, a remote server): the figure is then left out, never guessed.
import { readdirSync, readFileSync } from 'node:fs'

const TICKS_PER_S = 100 // USER_HZ: 100 on every Linux architecture Node runs on

/** Seconds of CPU (user + system) used so far by every process named `postgres`; undefined without /proc. */
export function postgresCpuSeconds (): number | undefined {
  let entries: string[]
  try { entries = readdirSync('/proc') } catch { return undefined }
  let ticks = 0
  let found = false
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue
    let stat: string
    try { stat = readFileSync(`/proc/${pid}/stat`, 'utf8') } catch { continue } // ended meanwhile
    const close = stat.lastIndexOf(')')
    if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue
    const fields = stat.slice(close + 2).split(' ')
    // utime, stime, cutime, cstime (proc(5) fields 14 to 17): the postmaster's cutime holds the backends that ended
    // (a pool closes idle connections), which would otherwise take their time with them.
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
    found = true
  }
  return found ? ticks / TICKS_PER_S : undefined
}

/** Whether a DATABASE_URL names a server of this machine, whose processes /proc shows. */
export function isLocalServer (url: string | undefined): boolean {
  if (url === undefined) return false
  try {
    const host = new URL(url).hostname
    return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]' || host === ''
  } catch { return false }
}
