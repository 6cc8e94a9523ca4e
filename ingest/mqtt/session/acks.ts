// The acknowledgements a device sends: PUBACK of a tasks publish (the device has the tasks, received-tasks.ts), and
// PUBREL of a QoS 2 publish of its own (MQTT 3.1.1 §4.3.3; MQTT 5 devices are granted QoS 1 at most). The service
// publishes nothing at QoS 2, so a PUBREC or PUBCOMP from a device is a protocol error (serve.ts closes for it).
import type { IPubackPacket, IPubrelPacket } from 'mqtt-packet'
import type { DeviceSession } from '../../../core/services/ingest/devices.service.js'
import type { MqttSession } from './session.js'
import { RC5 } from './reason-codes.js'

export function onPuback (s: MqttSession, session: DeviceSession, p: IPubackPacket): void {
  const id = p.messageId ?? 0
  const uids = s.inflightTasks.get(id)
  if (uids === undefined) return // a namespace's publish (Sparkplug B) or a retained one: nothing waits for it
  s.inflightTasks.delete(id)
  s.deps.onTasksReceived(session.systemUid, uids)
}

export function onPubrel (s: MqttSession, p: IPubrelPacket): void {
  if (s.v5) { s.close(RC5.protocolError); return }
  const id = p.messageId ?? 0
  // In order: after the PUBREC of the publish it releases.
  s.acks = s.acks.then(() => { s.awaitingRelease.delete(id); s.send({ cmd: 'pubcomp', messageId: id }) })
}
