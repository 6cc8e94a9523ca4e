// The Sparkplug B topic rules on the embedded broker (docs/protocols/sparkplug.md; docs/devices.md): an edge node
// logged in as a gateway serial number (or IMEI) publishes under `spBv1.0/<group>/<type>/<that id>[/<device>]` only
// (host.ts refuses the rest, counted as topic.forbidden), subscribes to its own NCMD and DCMD topics and to the host
// STATE topic, and receives nothing else.
import type { DeviceSession } from '../../core/services/ingest/device-session.js'
import { inNamespace, NAMESPACE, parseTopic } from '../../protocols/sparkplug/index.js'
import type { MqttNamespace } from '../mqtt/namespaces.js'
import type { SparkplugHost } from './host.js'

/** `spBv1.0/STATE/<host>` (3.0) or `STATE/<host>` (before), a host id or `+`. */
function isStateFilter (parts: readonly string[]): boolean {
  const host = parts[0] === NAMESPACE ? (parts[1] === 'STATE' ? parts[2] : undefined) : parts[0] === 'STATE' ? parts[1] : undefined
  const length = parts[0] === NAMESPACE ? 3 : 2
  return host !== undefined && host !== '' && host !== '#' && parts.length === length
}

/** `spBv1.0/<group or +>/NCMD/<own id>[/#]`, `spBv1.0/<group or +>/DCMD/<own id>/<device, + or #>`. */
function isOwnCommandFilter (username: string, parts: readonly string[]): boolean {
  const [ns, group, type, node, device] = parts
  if (ns !== NAMESPACE || group === undefined || group === '' || group === '#' || node !== username) return false
  if (type === 'NCMD') return parts.length === 4 || (parts.length === 5 && device === '#')
  return type === 'DCMD' && parts.length === 5 && device !== undefined && device !== ''
}

export function sparkplugNamespace (host: SparkplugHost): MqttNamespace {
  return {
    owns: inNamespace,
    publish: host.publish,
    maySubscribe (session: DeviceSession, filter: string) {
      const parts = filter.split('/')
      return isStateFilter(parts) || isOwnCommandFilter(session.username, parts)
    },
    mayReceive (session: DeviceSession, topic: string) {
      const t = parseTopic(topic)
      if (t !== undefined) return (t.type === 'NCMD' || t.type === 'DCMD') && t.node === session.username
      return isStateFilter(topic.split('/'))
    },
    disconnected: host.disconnected
  }
}
