// The Sparkplug B topic namespace (docs/protocols/sparkplug.md): `spBv1.0/<group>/<type>/<edge node>[/<device>]`, and
// the host application's STATE topic (`spBv1.0/STATE/<host>` in Sparkplug 3.0, `STATE/<host>` before).

export const NAMESPACE = 'spBv1.0'

export const NODE_TYPES = ['NBIRTH', 'NDEATH', 'NDATA', 'NCMD'] as const
export const DEVICE_TYPES = ['DBIRTH', 'DDEATH', 'DDATA', 'DCMD'] as const
export type MessageType = typeof NODE_TYPES[number] | typeof DEVICE_TYPES[number]

export interface SparkplugTopic { group: string, type: MessageType, node: string, device?: string }

const isNodeType = (t: string): t is typeof NODE_TYPES[number] => (NODE_TYPES as readonly string[]).includes(t)
const isDeviceType = (t: string): t is typeof DEVICE_TYPES[number] => (DEVICE_TYPES as readonly string[]).includes(t)
/** A topic level that names something: not empty, no wildcard. */
const id = (s: string | undefined): s is string => s !== undefined && s !== '' && !s.includes('+') && !s.includes('#')

/** The parts of an edge node or device topic; undefined for anything else (STATE included). */
export function parseTopic (topic: string): SparkplugTopic | undefined {
  const parts = topic.split('/')
  const [ns, group, type, node, device] = parts
  if (ns !== NAMESPACE || !id(group) || type === undefined || !id(node)) return undefined
  if (parts.length === 4 && isNodeType(type)) return { group, type, node }
  if (parts.length === 5 && isDeviceType(type) && id(device)) return { group, type, node, device }
  return undefined
}

export function nodeTopic (group: string, type: typeof NODE_TYPES[number], node: string): string {
  return `${NAMESPACE}/${group}/${type}/${node}`
}

export function deviceTopic (group: string, type: typeof DEVICE_TYPES[number], node: string, device: string): string {
  return `${NAMESPACE}/${group}/${type}/${node}/${device}`
}

/** The host application's STATE topic, Sparkplug 3.0 form. */
export const stateTopic = (hostId: string): string => `${NAMESPACE}/STATE/${hostId}`

/** A host application's STATE topic, 3.0 (`spBv1.0/STATE/<host>`) or earlier (`STATE/<host>`). */
export function isStateTopic (topic: string): boolean {
  const parts = topic.split('/')
  return (parts.length === 3 && parts[0] === NAMESPACE && parts[1] === 'STATE') || (parts.length === 2 && parts[0] === 'STATE')
}

/** Whether a topic (or a filter) is in the Sparkplug namespace, or the pre-3.0 STATE topic. */
export const inNamespace = (topic: string): boolean => topic.startsWith(NAMESPACE + '/') || topic.startsWith('STATE/')
