// What an external broker asks the service (EMQX's HTTP authenticator and authorizer, VerneMQ's webhooks):
// may this login connect, may it publish on this topic, subscribe to this filter. Devices log in as the device login
// does (core/services/ingest/devices.service.ts); a device publishes and subscribes only under its own `<login>/`
// (docs/devices.md); the service's own account (MQTT_URL) may do anything.
import { timingSafeEqual } from 'node:crypto'
import type { DevicesService } from '../../core/services/ingest/devices.service.js'
import { usableLogin } from '../broker-sync/dynsec-plan.js'

export type Verdict = 'allow' | 'deny' | 'unknown'

export interface BrokerRights {
  /** 'unknown': no device has this login (another authenticator of the broker may know it). */
  login (username: string, password: string, peer: string): Promise<{ verdict: Verdict, superuser: boolean }>
  /** Whether this login may publish on the topic, or subscribe to the filter. */
  mayUse (username: string, topic: string, action: 'publish' | 'subscribe'): boolean
}

function same (a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

const NO_RESERVED = new Set<string>()

export function createBrokerRights (devices: Pick<DevicesService, 'authenticate'>, service: { username: string | undefined, password: string | undefined }): BrokerRights {
  const isService = (username: string): boolean => service.username !== undefined && same(username, service.username)
  return {
    async login (username, password, peer) {
      if (isService(username)) return { verdict: service.password !== undefined && same(password, service.password) ? 'allow' : 'deny', superuser: true }
      if (!usableLogin(username, NO_RESERVED)) return { verdict: 'unknown', superuser: false }
      const r = await devices.authenticate(username, password, 'mqtt', peer)
      if (r.ok) return { verdict: 'allow', superuser: false }
      return { verdict: r.reason === 'device.unknown' ? 'unknown' : 'deny', superuser: false }
    },
    mayUse (username, topic, action) {
      if (isService(username)) return true
      if (!usableLogin(username, NO_RESERVED) || topic.includes('\u0000')) return false
      // A topic name holds no wildcard (MQTT 3.1.1 §4.7.1); a filter may, below the device's own level.
      if (action === 'publish' && /[+#]/.test(topic)) return false
      return topic.startsWith(username + '/')
    }
  }
}
