import type { PipelineOutcome } from '../../pipeline.js'
import type { DeviceSession } from '../../../core/services/ingest/devices.service.js'
import type { MqttSession } from './session.js'

/**
 * Where a device's publish (or its Will) goes: a topic of another protocol's namespace (Sparkplug B) to that
 * namespace, any other to the device's own topics (publish.ts of ingest/mqtt). Resolves after commit.
 */
export async function routePublish (s: MqttSession, session: DeviceSession, topic: string, payload: Buffer): Promise<PipelineOutcome> {
  const ns = s.deps.bus?.namespaceOf(topic)
  return ns === undefined
    ? await s.deps.publish(session, topic, payload)
    : await ns.publish(s.busClientOf(session), topic, payload)
}
