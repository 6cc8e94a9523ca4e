// A gateway's value of one MSCI id → the value stored under its data id (docs/protocols/msci.md: "many values are
// returned as OCTET STRING even when numeric — parse defensively"; docs/devices.md for the units).
// undefined: the gateway sent something the id cannot hold (counted by the poller, not stored).
import type { MsciEntry } from './ids.js'

type Value = number | string

/** docs/devices.md networkServiceType values, keyed by the ALEOS spelling without case or punctuation. */
const SERVICE_TYPES: ReadonlyMap<string, string> = new Map([
  ['none', 'None'], ['noservice', 'None'], ['gprs', 'GPRS'], ['edge', 'EDGE'], ['umts', 'UMTS'], ['wcdma', 'UMTS'],
  ['hsdpa', 'HSDPA'], ['hsupa', 'HSUPA'], ['hspa', 'HSPA'], ['hspaplus', 'HSPA'], ['hspa+', 'HSPA'], ['1x', '1X'],
  ['1xrtt', '1X'], ['evdorev0', 'EV-DO Rev.0'], ['evdoreva', 'EV-DO Rev.A'], ['lte', 'LTE'], ['4glte', 'LTE']
])

function serviceType (text: string): string {
  const key = text.toLowerCase().replace(/[\s._-]/g, '')
  return SERVICE_TYPES.get(key) ?? 'Unknown'
}

/** A finite number from a number or numeric text (ALEOS sends "-71", " 45.5 ", "23 C" is not one). */
export function numeric (v: Value): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined
  const t = v.trim()
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return undefined
  const n = Number(t)
  return Number.isFinite(n) ? n : undefined
}

/** The stored value of an id of the table. */
export function valueOf (entry: Pick<MsciEntry, 'unit'>, raw: Value): number | string | undefined {
  switch (entry.unit) {
    case 'number': return numeric(raw)
    case 'tenths': {
      const n = numeric(raw)
      const tenths = n === undefined ? NaN : Math.round(n * 10)
      return Number.isFinite(tenths) ? tenths : undefined
    }
    case 'degrees': {
      const n = numeric(raw)
      return n === undefined || Math.abs(n) > 180 ? undefined : n
    }
    case 'serviceType': return typeof raw === 'string' && raw.trim() !== '' ? serviceType(raw) : undefined
    case 'text': {
      const t = String(raw).trim()
      return t === '' ? undefined : t
    }
  }
}

/** The stored value of an id outside the table (a retrieve of any id): a number when it reads as one, else text. */
export function plainValue (raw: Value): number | string {
  return numeric(raw) ?? String(raw)
}
