// How the console writes times, sizes and values: one place, so every page reads alike. No DOM here.

/** An epoch-ms time in the browser's locale and zone, to the second. */
export function formatDate (ms: number): string {
  if (!Number.isFinite(ms)) return ''
  return new Date(ms).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' })
}

/** The time alone for today ("11:43:09"), else the short date and time: for columns of recent times. */
export function formatShort (ms: number, now: number = Date.now()): string {
  if (!Number.isFinite(ms)) return ''
  const d = new Date(ms)
  const sameDay = d.toDateString() === new Date(now).toDateString()
  return sameDay
    ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
}

/** "12 s ago", "5 min ago", "3 h ago", "2 d ago"; a date beyond a month. */
export function formatAgo (ms: number, now: number = Date.now()): string {
  const s = Math.round((now - ms) / 1000)
  if (s < 0) return formatDate(ms)
  if (s < 60) return `${s} s ago`
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`
  if (s < 31 * 86_400) return `${Math.floor(s / 86_400)} d ago`
  return formatDate(ms)
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB']

/** Bytes in powers of 1024 with one decimal below 10 ("1.5 KB", "12 MB"). */
export function formatBytes (n: number): string {
  if (!Number.isFinite(n)) return ''
  let v = Math.abs(n)
  let u = 0
  while (v >= 1024 && u < UNITS.length - 1) { v /= 1024; u++ }
  const text = u === 0 || v >= 10 ? Math.round(v).toString() : v.toFixed(1)
  return `${n < 0 ? '-' : ''}${text} ${UNITS[u] ?? 'B'}`
}

/** A data value as a device sent it: numbers with at most 4 decimals, objects as JSON, null as an empty text. */
export function formatValue (v: unknown): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 10_000) / 10_000)
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v)
}
