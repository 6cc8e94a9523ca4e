// Which devices of a fleet are of a failing share (`--failure-rate`, `--update-failure-rate`), and what each does
// with software (simulator/README.md "Software").
import type { Limiter } from './devices/limiter.js'
import type { SoftwareOptions } from './devices/software.js'

/**
 * Whether device n (1-based) of the fleet is one of the failing share: round(n × rate) steps up at exactly
 * round(devices × rate) of the n, spread evenly, and the same ones on every run.
 */
export function failsTasks (n: number, rate: number): boolean {
  return Math.round(n * rate) > Math.round((n - 1) * rate)
}

/** What device n does with software: the fleet's download limiter and cut rate, and whether it fails its installs. */
export function softwareOf (n: number, opts: { updateFailureRate?: number, downloadCutRate?: number }, limiter: Limiter, signal?: AbortSignal): SoftwareOptions {
  return { failsInstalls: failsTasks(n, opts.updateFailureRate ?? 0), download: { limiter, cutRate: opts.downloadCutRate ?? 0, ...(signal === undefined ? {} : { signal }) } }
}
