// A logged-in MQTT session as the registry of connections sees it: how tasks reach the device, how it is taken over.
import type { IPublishPacket } from 'mqtt-packet'
import type { DeviceSession } from '../../../core/services/ingest/devices.service.js'
import { deviceTopic, topicMatches, wantsTasks } from '../../../protocols/mqtt/topic.js'
import type { MqttConnection } from '../registry.js'
import type { MqttSession } from './session.js'
import { RC5 } from './reason-codes.js'

/**
 * The QoS tasks are sent at. MQTT 3.1 and 3.1.1: the highest granted to a filter matching the tasks topic (MQTT
 * 3.1.1 §3.3.5), so a device subscribed at QoS 0 is not asked for PUBACKs it will not send. MQTT 5 devices have
 * always been sent them at QoS 1, whatever they subscribed at.
 */
function tasksQos (s: MqttSession, username: string): 0 | 1 {
  if (s.v5) return 1
  const topic = deviceTopic(username, 'tasks')
  for (const [f, q] of s.filters) if (q === 1 && topicMatches(f, topic)) return 1
  return 0
}

export function connectionOf (s: MqttSession, session: DeviceSession, clientId: string): MqttConnection {
  const topic = deviceTopic(session.username, 'tasks')
  return {
    session,
    version: s.v5 ? '5' : '3.1.1',
    clientId,
    ...(s.certificate === undefined ? {} : { certificate: s.certificate }),
    wantsTasks: () => wantsTasks(session.username, s.filters.keys()),
    async sendTasks (payload, taskUids) {
      if (s.closed) return
      if (tasksQos(s, session.username) === 0) {
        s.send({ cmd: 'publish', topic, payload: Buffer.from(payload), qos: 0, retain: false, dup: false } as IPublishPacket)
        return
      }
      const messageId = s.packetId()
      s.inflightTasks.set(messageId, taskUids)
      s.send({ cmd: 'publish', topic, payload: Buffer.from(payload), qos: 1, retain: false, dup: false, messageId } as IPublishPacket)
    },
    // MQTT 5.0 §3.1.4: a connection taken over is told so (0x8E); MQTT 3.1.1 has no way to say it.
    close: (opts) => { s.close(opts?.takenOver === true ? RC5.sessionTakenOver : undefined) }
  }
}
