import type { MqttSession } from './session.js'

/** PINGREQ: the keep alive was already renewed by the packet's coming (serve.ts); the device is answered. */
export function onPingreq (s: MqttSession): void { s.send({ cmd: 'pingresp' }) }
