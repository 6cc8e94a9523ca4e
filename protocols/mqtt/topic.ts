// MQTT topic filters (MQTT 3.1.1 §4.7, MQTT 5.0 §4.7): '+' matches one level, '#' (last) the level and all below.
// Topics starting with '$' are not matched by a filter starting with a wildcard (§4.7.2).

/** Whether `topic` (no wildcards) matches `filter`. */
export function topicMatches (filter: string, topic: string): boolean {
  const f = filter.split('/')
  const t = topic.split('/')
  if (topic.startsWith('$') && (f[0] === '+' || f[0] === '#')) return false
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return i === f.length - 1
    if (i >= t.length) return false
    if (f[i] !== '+' && f[i] !== t[i]) return false
  }
  return f.length === t.length
}

/** The device topics (docs/protocols/README.md.md §3.1): data and acks in, tasks out. */
export type DeviceTopicKind = 'messages' | 'acks' | 'tasks'

/** `<username>/<kind>/json`: the one place the device topics are spelled. */
export function deviceTopic (username: string, kind: DeviceTopicKind): string {
  return `${username}/${kind}/json`
}

/**
 * What a device publish is about: its data or its acks, another own topic (`other`), or a topic outside its own
 * `<username>/` (`foreign`: a device publishes and subscribes only there, docs/devices.md).
 */
export function publishTopicKind (username: string, topic: string): 'messages' | 'acks' | 'other' | 'foreign' {
  if (!ownsTopic(username, topic)) return 'foreign'
  if (topic === deviceTopic(username, 'messages')) return 'messages'
  if (topic === deviceTopic(username, 'acks')) return 'acks'
  return 'other'
}

/** Whether a topic or a filter lies under the device's own `<username>/`. */
export function ownsTopic (username: string, topicOrFilter: string): boolean {
  return topicOrFilter.startsWith(username + '/')
}

/** Whether one of these subscription filters of the device delivers its tasks topic. */
export function wantsTasks (username: string, filters: Iterable<string>): boolean {
  const topic = deviceTopic(username, 'tasks')
  for (const f of filters) if (topicMatches(f, topic)) return true
  return false
}
