// What an MQTT device publishes (3.1.1 and 5 alike) goes through the ingest pipeline by its topic: data on
// `<username>/messages/json`, acks on `<username>/acks/json` (docs/devices.md), AirVantage JSON on both
// (protocols/airvantage). Anything else is refused and counted.
import { decodeAcks, decodeData } from '../../protocols/airvantage/index.js'
import { publishTopicKind } from '../../protocols/mqtt/topic.js'
import type { DeviceSession } from '../../core/services/ingest/devices.service.js'
import type { AckDecoder, DataDecoder, Pipeline, PipelineOutcome } from '../pipeline.js'

const data: DataDecoder = (payload, receivedAt) => decodeData(payload, { receivedAt })
const acks: AckDecoder = (payload) => decodeAcks(payload)

/** Handles one publish of an authenticated device; resolves after commit. */
export type MqttPublishHandler = (session: DeviceSession, topic: string, payload: Buffer) => Promise<PipelineOutcome>

export function mqttPublishHandler (pipeline: Pipeline): MqttPublishHandler {
  return async (session, topic, payload) => {
    switch (publishTopicKind(session.username, topic)) {
      case 'messages': return await pipeline.data(session, payload, data)
      case 'acks': return await pipeline.acks(session, payload, acks)
      case 'foreign': return pipeline.refuse('topic.forbidden')
      case 'other': return pipeline.refuse('topic.unsupported')
    }
  }
}
