// AirVantage MQTT/REST JSON codecs (docs/protocols/README.md); see docs/protocols/mqtt.md and rest.md for the forms and refusal reasons.
export * from './types.js'
export { decodeData, encodeData, normaliseTimestamp } from './payload.js'
export type { DataForm, DataReason, DecodedData, DecodeDataOptions } from './payload.js'
export { decodeAcks, encodeAcks } from './acks.js'
export type { Ack, AckReason, AckStatus, DecodedAcks } from './acks.js'
export { decodeTasks, encodeTasks } from './tasks.js'
export type {
  CommandTask, DecodedTasks, JsonValue, ReadTask, SoftwareRef, SoftwareTask, SoftwareToEncode, SwInstallTask, SwStartTask, SwStopTask,
  SwUninstallTask, Task, TaskReason, TaskToEncode, WriteTask
} from './tasks.js'
export type { TextReason } from './text.js'
