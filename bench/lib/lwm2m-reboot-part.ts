// bench lwm2m's part `reboot`: N queue-mode devices (BENCH_DEVICES, 10,000; `b=U` with `Q`, LwM2M 1.1) register,
// then each updates every BENCH_UPDATE_S seconds (60, its "poll" as `fleet simulate --lwm2m-queue --poll-period 60`
// has it, phases spread over the period) and sleeps between its updates once its awake window has passed
// (simulator/README.md "Queue mode"). One reboot operation on all of them by label (docs/protocols/lwm2m.md#device-tasks:
// Execute /3/0/4, held for a device asleep until its next Update). The target: every task SUCCESS within two update
// periods of the request. Printed: the time to the last SUCCESS (the tasks' acknowledgement dates), how many, the
// failures by message, the restarts the devices counted, and the service's CoAP retransmissions meanwhile.
import { setTimeout as sleep } from 'node:timers/promises'
import { cpuNow, cpuPer, fixed, loadNow, loadText, mib, sampleRss, waitFor, type Cpu, type PartContext } from './lwm2m-bench.js'
import { startLwm2mFleet, type Lwm2mFleet } from './lwm2m-fleet.js'
import type { StepRun } from './lwm2m-runs.js'
import { LWM2M_LABEL } from './lwm2m-seed.js'
import { passwordToken } from './service.js'

export interface RebootFigures {
  devices: number
  register: StepRun
  updateS: number
  tasks: number
  success: number
  failures: Array<{ message: string, count: number }>
  /** Request → the last task acknowledged OK (s), and → FINISHED (NaN: not within rebootMaxS). */
  lastSuccessS: number
  finishedS: number
  resets: number
  /** Devices that restarted, and of them those that restarted more than once (the Execute went again). */
  restarted: number
  restartedAgain: number
  updates: number
  serverCoap: { retransmissions: number, timeouts: number }
  cpu: Cpu
  load: [number, number]
  rssMax: number
}

/** A queue-mode device of the simulator stays awake this long after an exchange (simulator/README.md, Queue mode). */
const SIMULATOR_AWAKE_MS = 5000

interface Op { state: string, total: number, counters: Array<{ state: string, count: number }> }
const countOf = (op: Op, state: string): number => op.counters.find((x) => x.state === state)?.count ?? 0

/** POSTs the reboot by label (asked again while the service sheds it, 503); its uid. */
async function postReboot (origin: string, headers: Record<string, string>): Promise<string> {
  for (;;) {
    const res = await fetch(`${origin}/api/v1/operations/systems/reboot`, { method: 'POST', headers, body: JSON.stringify({ systems: { label: LWM2M_LABEL } }) })
    if (res.status === 503) { await res.text(); await sleep(200); continue }
    if (res.status !== 200) throw new Error(`reboot: ${res.status} ${await res.text()}`)
    return (await res.json() as { operation: string }).operation
  }
}

/**
 * Polls the operation every second until FINISHED, maxS, or every task of a registered device ended (a device that
 * could not register keeps its task PENDING until the operation's timeout); prints its progress every 10 s.
 */
async function follow (origin: string, headers: Record<string, string>, uid: string, t0: number, o: { maxS: number, registered: number }): Promise<{ op: Op, finishedS: number }> {
  let shown = 0
  for (;;) {
    const res = await fetch(`${origin}/api/v1/operations/${uid}`, { headers })
    if (res.status !== 200) { await res.text(); await sleep(1000); continue }
    const op = await res.json() as Op
    const elapsed = (Date.now() - t0) / 1000
    if (op.state === 'FINISHED') return { op, finishedS: elapsed }
    if (elapsed > o.maxS || (o.registered < op.total && countOf(op, 'SUCCESS') + countOf(op, 'FAILURE') >= o.registered)) return { op, finishedS: Number.NaN }
    if (elapsed - shown >= 10) {
      shown = elapsed
      console.log(`   ${fixed(elapsed, 0).padStart(4)} s  ${countOf(op, 'SUCCESS')} SUCCESS, ${countOf(op, 'FAILURE')} FAILURE of ${op.total} (${loadText(loadNow(), loadNow())})`)
    }
    await sleep(1000)
  }
}

/** The operation's tasks as the store has them: the last OK acknowledgement, and the failures by message. */
async function tasksOf (c: PartContext, uid: string): Promise<{ lastOkAt: number, failures: RebootFigures['failures'] }> {
  const [last] = await c.svc.query<{ at: string | null }>("SELECT max(acked_at) AS at FROM device_tasks WHERE operation_uid = $1 AND state = 'OK'", [uid])
  const failures = await c.svc.query<{ message: string | null, count: string }>(
    "SELECT message, count(*) AS count FROM device_tasks WHERE operation_uid = $1 AND state = 'ERROR' GROUP BY message ORDER BY 2 DESC LIMIT 5", [uid])
  return { lastOkAt: last?.at === null || last?.at === undefined ? Number.NaN : Number(last.at), failures: failures.map((f) => ({ message: f.message ?? '(none)', count: Number(f.count) })) }
}

/** The queue-mode fleet registered, updating every period, its first values stored, and asleep but for its updates. */
async function readyFleet (c: PartContext, fleet: Lwm2mFleet): Promise<StepRun> {
  const { svc, cfg } = c
  const lifetime = Math.max(300, 2 * cfg.updateS) // updates come from the period, not from the lifetime's timer
  const stored0 = await svc.stored()
  const register = await fleet.register({ url: svc.coapUrl, concurrency: cfg.concurrency, lifetime, queue: true, rebootMs: cfg.rebootMs, ...(cfg.queueAwakeMs === undefined ? {} : { queueAwakeMs: cfg.queueAwakeMs }) })
  console.log(`   registered ${register.ok} of ${cfg.devices} in ${fixed(register.seconds)} s${register.failed > 0 ? `; ${register.failed} failed (${register.lastError ?? '?'})` : ''}`)
  await fleet.poll(cfg.updateS * 1000)
  // The observations the service made after each Register (first values) settle before the reboot is asked.
  await waitFor(async () => await svc.stored() - stored0 >= 3 * register.ok, 60_000, 1000)
  console.log(`   first values stored: ${await svc.stored() - stored0} of ${3 * register.ok}`)
  // Then the last devices' awake window passes: from here a device is reachable only around its own updates.
  await sleep((cfg.queueAwakeMs ?? SIMULATOR_AWAKE_MS) + 2000)
  return register
}

export async function rebootPart (c: PartContext): Promise<RebootFigures> {
  const { svc, cfg } = c
  const fleet = startLwm2mFleet(cfg.devices, cfg.perProcess)
  console.log(`\n-- reboot: ${cfg.devices} queue-mode devices, an update every ${cfg.updateS} s, awake ${cfg.queueAwakeMs ?? SIMULATOR_AWAKE_MS} ms after each exchange`)
  try {
    const register = await readyFleet(c, fleet)
    const headers = { authorization: `Bearer ${await passwordToken(svc.origin, { username: cfg.admin.email, password: cfg.admin.password, clientId: cfg.admin.clientId, clientSecret: cfg.admin.clientSecret })}`, 'content-type': 'application/json' }
    const before = { stats: await fleet.stats(), coap: await svc.coap(), cpu: await cpuNow(c, fleet), load: loadNow() }
    const rss = sampleRss(svc)
    const t0 = Date.now()
    const uid = await postReboot(svc.origin, headers)
    const { op, finishedS } = await follow(svc.origin, headers, uid, t0, { maxS: cfg.rebootMaxS, registered: register.ok })
    const after = { coap: await svc.coap(), cpu: await cpuNow(c, fleet), load: loadNow() }
    const rssMax = await rss.stop()
    const success = countOf(op, 'SUCCESS')
    // A device answers the Execute, then is off for rebootMs and registers again: its restart is counted then.
    await waitFor(async () => (await fleet.stats()).resets - before.stats.resets >= success, cfg.rebootMs + 30_000, 1000)
    const stats = await fleet.stats()
    const tasks = await tasksOf(c, uid)
    const f: RebootFigures = {
      devices: cfg.devices,
      register,
      updateS: cfg.updateS,
      tasks: op.total,
      success,
      failures: tasks.failures,
      lastSuccessS: (tasks.lastOkAt - t0) / 1000,
      finishedS,
      resets: stats.resets - before.stats.resets,
      restarted: stats.restarted,
      restartedAgain: stats.restartedAgain,
      updates: stats.updates - before.stats.updates,
      serverCoap: { retransmissions: (after.coap.udp?.retransmissions ?? 0) - (before.coap.udp?.retransmissions ?? 0), timeouts: (after.coap.udp?.timeouts ?? 0) - (before.coap.udp?.timeouts ?? 0) },
      cpu: cpuPer(before.cpu, after.cpu, op.total),
      load: [before.load, after.load],
      rssMax
    }
    printReboot(f)
    return f
  } finally {
    await fleet.close()
  }
}

function printReboot (f: RebootFigures): void {
  const met = f.success === f.devices && f.lastSuccessS <= 2 * f.updateS
  const unregistered = f.devices - f.register.ok
  console.log(`   reboot: ${f.success} of ${f.tasks} SUCCESS, the last ${fixed(f.lastSuccessS)} s after the request; FINISHED ${Number.isNaN(f.finishedS) ? 'not seen' : `after ${fixed(f.finishedS)} s`}` +
    `${unregistered > 0 ? ` (${unregistered} devices never registered: their tasks wait)` : ''} (${loadText(...f.load)})`)
  for (const x of f.failures) console.log(`   FAILURE ×${x.count}: ${x.message}`)
  console.log(`   devices: ${f.resets} restarts (${f.restarted} devices, ${f.restartedAgain} of them more than once), ${f.updates} updates meanwhile; the service's CoAP: ${f.serverCoap.retransmissions} retransmissions, ${f.serverCoap.timeouts} exchanges timed out; RSS at most ${mib(f.rssMax)} MiB`)
  console.log(`   target: every task SUCCESS within two update periods (${2 * f.updateS} s): ${met ? 'met' : 'missed'}`)
}
