import type { IDisconnectPacket } from 'mqtt-packet'
import type { MqttSession } from './session.js'
import { RC5 } from './reason-codes.js'

/**
 * DISCONNECT from the device: the connection ends without its Will (MQTT 3.1.1 §3.14.4), except an MQTT 5
 * "disconnect with Will message" (0x04, MQTT 5.0 §3.14.2.1), which asks for it.
 */
export function onDisconnect (s: MqttSession, p: IDisconnectPacket): void {
  s.cleanDisconnect = !(s.v5 && p.reasonCode === RC5.disconnectWithWill)
  s.close()
}
