// Device password guessing is throttled like people's sign-ins (login-throttle.ts,
// docs/security.md#device-login-throttling), on counters of their own: wrong passwords for one device from one address
// (DEVICE_LOGIN_THROTTLE_FAILURES), for one device from every address together (ten times as many, so that a guesser
// elsewhere does not lock the device out as soon), and from one address for any device
// (DEVICE_LOGIN_THROTTLE_ADDRESS_FAILURES, which a fleet behind one NAT address shares).
import type { Config } from '../../config.js'
import { noMetrics, type MetricsRegistry } from '../../metrics.js'
import type { Clock, RateCounter } from '../../ports/store.js'
import { createLoginThrottle } from '../login-throttle.js'
import type { DevicesServiceDeps } from './devices.service.js'

/** How many more failures one device may have from all addresses together than from one. */
const DEVICE_WIDE_FACTOR = 10

export function deviceLoginThrottle (config: Readonly<Config>, counter: RateCounter, clock: Clock, metrics: MetricsRegistry = noMetrics): NonNullable<DevicesServiceDeps['throttle']> {
  const throttle = createLoginThrottle(counter, clock, {
    accountAddressFailures: config.DEVICE_LOGIN_THROTTLE_FAILURES,
    accountFailures: config.DEVICE_LOGIN_THROTTLE_FAILURES * DEVICE_WIDE_FACTOR,
    addressFailures: config.DEVICE_LOGIN_THROTTLE_ADDRESS_FAILURES,
    baseMs: config.DEVICE_LOGIN_THROTTLE_BASE_MS,
    keyPrefix: 'device-login',
    addressCountsFailuresOnly: true
  })
  const throttled = metrics.counter<'protocol'>({
    name: 'fleet_device_logins_throttled_total',
    help: 'Device logins refused unchecked because their device or address had too many wrong passwords, by protocol (mqtt, rest)',
    labels: ['protocol']
  })
  return { check: throttle.check, throttled }
}
