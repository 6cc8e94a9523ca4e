// The summary tables of bench lwm2m, one row per store for each part, the load average beside each figure.
import type { CoapFigure } from './lwm2m-coap-bare.js'
import { fixed, mib, type Cpu } from './lwm2m-bench.js'
import type { DtlsFigures } from './lwm2m-dtls-part.js'
import type { RebootFigures } from './lwm2m-reboot-part.js'
import type { RegisterFigures } from './lwm2m-register-part.js'
import { stepFigures } from './lwm2m-runs.js'
import { table, type Cell } from './table.js'

export interface StoreFigures { store: string, register?: RegisterFigures, dtls?: DtlsFigures, reboot?: RebootFigures }

const loads = (l: [number, number]): string => `${fixed(l[0], 2)}→${fixed(l[1], 2)}`
const cpuText = (c: Cpu): string => `${fixed(c.service, 0)} / ${fixed(c.devices, 0)}${Number.isNaN(c.store) ? '' : ` / ${fixed(c.store, 0)}`}`

export function printCoap (figures: readonly CoapFigure[], load: [number, number]): void {
  console.log(`\n== coap: the CoAP layer alone, one process (${loads(load)})\n`)
  console.log(table(['exchange', 'requests', 'seconds', 'requests/s', 'retransmissions', 'duplicates'],
    figures.map((f) => [f.label, f.requests, f.seconds, f.perS, f.retransmissions, f.duplicates])))
}

function printRegister (rows: StoreFigures[]): void {
  const withIt = rows.flatMap((r) => r.register === undefined ? [] : [{ store: r.store, f: r.register }])
  if (withIt.length === 0) return
  console.log('\n== register: NoSec devices, then notifications (CPU µs a registration or a committed notification: service / devices / PostgreSQL)\n')
  console.log(table(['store', 'devices', 'registrations/s', 'p50 ms', 'p99 ms', 'failed', 'CPU µs', 'load', 'all observed s'], withIt.map(({ store, f }) => {
    const s = stepFigures(f.register)
    return [store, f.register.ok, s.perS, s.p50, s.p99, f.register.failed, cpuText(f.registerCpu), loads(f.registerLoad), f.servedS]
  })))
  console.log()
  console.log(table(['store', 'messages acked', 'committed', 'committed/s', 'after the window', 'refused', 'CPU µs', 'load', 'updates', 'UDP drops'], withIt.map(({ store, f }) => {
    const n = f.notify
    const refused = Object.entries(n.refused).map(([k, v]) => `${v} ${k}`).join(', ')
    return [store, n.published, n.committed, n.committed / n.seconds, `${n.after} in ${fixed(n.drainS, 0)} s${n.waiting > 0 ? `, ${n.waiting} left` : ''}`, refused === '' ? '0' : refused, cpuText(n.cpu), loads(n.load), n.updates, n.udpDrops]
  })))
  console.log()
  console.log(table(['store', 'RSS idle MiB', 'registered MiB', 'at most MiB', 'KiB a registration', 'de-registered MiB', 'devices\' RSS MiB'], withIt.map(({ store, f }): Cell[] =>
    [store, mib(f.rss.idle), mib(f.rss.registered), mib(f.rss.max), (f.rss.registered - f.rss.idle) / 1024 / Math.max(1, f.register.ok), mib(f.rss.deregistered), mib(f.devicesRss)])))
}

function printDtls (rows: StoreFigures[]): void {
  const withIt = rows.flatMap((r) => r.dtls === undefined ? [] : [{ store: r.store, f: r.dtls }])
  if (withIt.length === 0) return
  console.log('\n== dtls: per second, and the server\'s CPU µs each (the bare server\'s is the benchmark process\'s)\n')
  const out: Cell[][] = []
  for (const { store, f } of withIt) {
    const base = f.steps[0] === undefined ? Number.NaN : stepFigures(f.steps[0].run).perS
    for (const s of f.steps) {
      const x = stepFigures(s.run)
      out.push([store, s.name, s.run.ok, s.run.failed, x.perS, x.perS / base, x.p50, x.p99, s.cpu.service, loads(s.load)])
    }
  }
  console.log(table(['store', 'step', 'ok', 'failed', 'per s', '÷ NoSec', 'p50 ms', 'p99 ms', 'server µs', 'load'], out))
}

function printReboot (rows: StoreFigures[]): void {
  const withIt = rows.flatMap((r) => r.reboot === undefined ? [] : [{ store: r.store, f: r.reboot }])
  if (withIt.length === 0) return
  console.log('\n== reboot: queue-mode devices (target: every task SUCCESS within two update periods)\n')
  console.log(table(['store', 'devices', 'update s', 'SUCCESS', 'FAILURE', 'last SUCCESS s', 'FINISHED s', 'target', 'devices restarted', 'more than once', 'CoAP retransmissions', 'RSS max MiB', 'load'], withIt.map(({ store, f }) => [
    store, f.devices, f.updateS, f.success, f.failures.reduce((n, x) => n + x.count, 0), f.lastSuccessS, f.finishedS,
    f.success === f.devices && f.lastSuccessS <= 2 * f.updateS ? 'met' : 'missed', f.restarted, f.restartedAgain, f.serverCoap.retransmissions, mib(f.rssMax), loads(f.load)
  ])))
}

export function printSummary (rows: StoreFigures[]): void {
  printRegister(rows)
  printDtls(rows)
  printReboot(rows)
}
