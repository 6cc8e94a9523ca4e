// CPU time one process has used so far (Linux /proc/<pid>/stat), so that a benchmark can say how much of the two
// shared cores the service had while it ran: beside the wall time, it tells a service that waited for the CPU from
// one that was slow. Undefined where it cannot be read (another OS, a process gone): the figure is then left out.
import { readFile } from 'node:fs/promises'

const TICKS_PER_S = 100 // USER_HZ, as server-cpu.ts reads it

/** Seconds of CPU (user + system) process `pid` has used; undefined without /proc. */
export async function processCpuSeconds (pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S
  } catch {
    return undefined
  }
}
