// The alert rules of `npm run bench -- alerts`, created through the API as a user would (POST /api/v2/alertrules, so the
// store's data-id index is written by the service itself, decision 0031), and the alerts they raised.
import type { Db } from '../../core/ports/store.js'
import { row } from './seed-systems.js'

/** bench/ingest-devices.ts sends machine.temperature 20.0, 20.1 ... 29.9 on a device's successive messages, then again. */
export const TEMPERATURE_ID = 'machine.temperature'
/** Crossed by the last 4 of each 100 messages: one alert raised and closed per 100 messages of the device. */
export const CROSSING_THRESHOLD = 29.5
/** Over anything the devices send: evaluated on every message, never true. */
export const QUIET_THRESHOLD = 35
/** One device's rule in this many crosses its threshold. */
export const CROSSING_EVERY = 10

export interface ApiAccess { origin: string, token: string }

async function post (api: ApiAccess, path: string, body: unknown): Promise<{ uid: string }> {
  const res = await fetch(`${api.origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body)
  })
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`)
  return await res.json() as { uid: string }
}

/** Creates a rule; answers its uid. */
export async function createRule (api: ApiAccess, rule: { name: string, conditions: unknown[] }): Promise<string> {
  return (await post(api, '/api/v2/alertrules', rule)).uid
}

/** Adds a hook to a rule (`callback.forbidden` for a local receiver unless CALLBACK_ALLOW_PRIVATE). */
export async function addHook (api: ApiAccess, ruleUid: string, callback: string): Promise<void> {
  await post(api, `/api/v1/alerts/rules/${ruleUid}/hooks`, { callback })
}

/**
 * One rule per device 1..n, pinned to it by `system.id EQUALS <uid>` (decision 0032: found only by its system's
 * points), with a threshold on the temperature every message carries: every message has one candidate rule and is
 * evaluated. Device i's rule crosses its threshold when i is a multiple of CROSSING_EVERY. `concurrency` requests at once.
 */
export async function createPinnedRules (api: ApiAccess, n: number, concurrency = 8): Promise<string[]> {
  const uids: string[] = new Array<string>(n)
  let next = 1
  const worker = async (): Promise<void> => {
    for (let i = next++; i <= n; i = next++) {
      const threshold = i % CROSSING_EVERY === 0 ? CROSSING_THRESHOLD : QUIET_THRESHOLD
      uids[i - 1] = await createRule(api, {
        name: `Hot ${row.serialNumber(i)}`,
        conditions: [
          { operator: 'EQUALS', operands: [{ attributeId: { name: 'system.id' } }, { valueStr: row.uid(i) }] },
          { operator: 'GT', operands: [{ attributeId: { name: `DATA.${TEMPERATURE_ID}` } }, { valueNum: threshold }] }
        ]
      })
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return uids
}

/** Deletes the rules through the API, `concurrency` requests at once. */
export async function deleteRules (api: ApiAccess, uids: readonly string[], concurrency = 8): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    for (let i = next++; i < uids.length; i = next++) {
      const res = await fetch(`${api.origin}/api/v2/alertrules/${uids[i] ?? ''}`, { method: 'DELETE', headers: { authorization: `Bearer ${api.token}` } })
      if (!res.ok) throw new Error(`DELETE alert rule: ${res.status} ${await res.text()}`)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

export interface AlertCounts { raised: number, open: number, notified: number }

/** The alerts of these rules: raised, still open, and notified (their alert.notify job done). */
export async function alertCounts (db: Db, ruleUids: readonly string[]): Promise<AlertCounts> {
  const { rows: [c] } = await db.query<AlertCounts>(`SELECT count(*)::int AS raised, count(*) FILTER (WHERE state = 'OPEN')::int AS open,
    count(*) FILTER (WHERE NOT notify_pending)::int AS notified FROM alerts WHERE rule_uid = ANY($1::text[])`, [ruleUids])
  return c ?? { raised: 0, open: 0, notified: 0 }
}
