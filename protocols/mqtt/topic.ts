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
