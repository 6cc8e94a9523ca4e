import type { PipelineOutcome } from '../../pipeline.js'
import type { DeviceSession } from '../../../core/services/ingest/devices.service.js'
import type { MqttSession } from './session.js'

/**
 * Where a device's publish (or its Will) goes: a topic of another protocol's namespace (Sparkplug B) to that
 * namespace, any other to the device's own topics (publish.ts of ingest/mqtt). Resolves after commit.
 */
export function routePublish (s: MqttSession, session: DeviceSession, topic: string, payload: Buffer): Promise<PipelineOutcome> {
  // Not async: the handler's promise itself, no second one wrapped around each publish of the ingest path.
  const ns = s.deps.bus?.namespaceOf(topic)
  return ns === undefined ? s.deps.publish(session, topic, payload) : ns.publish(s.busClientOf(session), topic, payload)
}
