// The end of a run: what the devices saw acknowledged must be stored by the service, read back through its API
// (GET /api/v1/systems/{uid}/messages, following `next`). An acknowledgement alone proves nothing: another broker on
// the MQTT port (a Mosquitto on 1883) acknowledges everything and stores nothing for the service.
import { inParallel } from './schedule.js'
import type { ApiClient } from './provision.js'

export interface Verification {
  acknowledged: number
  /** Messages the service holds for the run's systems. */
  stored: number
  ok: boolean
}

// The API's largest page (docs/api.md#using-the-api: size at most 500).
const PAGE = 500

/** Counts the messages the service stored for one system, page by page. */
export async function storedMessages (api: ApiClient, systemUid: string): Promise<number> {
  let path: string | undefined = `/api/v1/systems/${encodeURIComponent(systemUid)}/messages?size=${PAGE}`
  let n = 0
  while (path !== undefined) {
    const res = await api.request('GET', path)
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(res.json)}`)
    const page = res.json as { next: string | null, messages: unknown[] }
    n += page.messages.length
    // `next` is an absolute URL on the address the service saw; the path and query are what this client needs.
    path = page.next === null ? undefined : ((u) => u.pathname + u.search)(new URL(page.next))
  }
  return n
}

/** Reads back the messages of the run's systems and compares them with what was acknowledged. */
export async function verifyStored (api: ApiClient, systemUids: readonly string[], acknowledged: number): Promise<Verification> {
  let stored = 0
  await inParallel(systemUids, 8, async (uid) => {
    const n = await storedMessages(api, uid) // read before adding: `stored += await ...` would add to a stale total
    stored += n
  })
  // More stored than acknowledged is fine: a message whose acknowledgement was lost, or cut off by Ctrl-C.
  return { acknowledged, stored, ok: stored >= acknowledged }
}

/** The last line of a run: verified, or why not and where to look. */
export function verificationLine (v: Verification, link: { protocol: 'mqtt' | 'rest' | 'm3da' | 'sparkplug' | 'ddi', url: string, mqttUrl?: string | undefined }): string {
  if (v.ok) return `verified: ${v.acknowledged} of ${v.acknowledged} acknowledged messages stored`
  const base = `verification failed: the service at ${link.url} stored ${v.stored} of ${v.acknowledged} acknowledged messages`
  return link.protocol === 'mqtt' || link.protocol === 'sparkplug'
    ? `${base}; the broker at ${link.mqttUrl ?? '?'} that acknowledged them is probably not this service's (another MQTT broker on that port?): ` +
      'point --mqtt-url at the service (its MQTT_PORT)'
    : `${base}; is ${link.url} this service?`
}
