// A device float that is NaN or an infinity (M3DA and Sparkplug carry IEEE floats; JSON payloads cannot): stored as
// a null value, so that every answer stays JSON and no mean becomes NaN (core/services/ingest/ingest.service.ts).
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createDevice, settle } from '../../helpers/devices.js'

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

it('NaN and infinities become null values: raw, last and aggregated data answer 200 and fold the numbers only', async () => {
  const d = await createDevice(stack)
  const ts = Date.UTC(2025, 2, 10, 12)
  await stack.ctx.services.ingest.accept({
    uid: 'm-non-finite',
    systemUid: d.uid,
    companyUid: stack.companyUid,
    protocol: 'M3DA',
    receivedAt: ts,
    timestamp: ts,
    nbDataPoints: 4,
    points: [
      { dataId: 'f', ts: ts - 3000, value: 2 },
      { dataId: 'f', ts: ts - 2000, value: Number.NaN },
      { dataId: 'f', ts: ts - 1000, value: Number.POSITIVE_INFINITY },
      { dataId: 'f', ts, value: Number.NEGATIVE_INFINITY }
    ]
  })
  await settle(stack)
  const get = async (url: string) => await stack.call(stack.adminToken, { method: 'GET', url })
  const raw = await get(`/api/v1/systems/data/raw?targetIds=${d.uid}&dataIds=f&from=${ts - 60_000}&to=${ts + 1}`)
  expect(raw.statusCode).toBe(200)
  expect(raw.json()[d.uid].f).toEqual([{ ts, v: null }, { ts: ts - 1000, v: null }, { ts: ts - 2000, v: null }, { ts: ts - 3000, v: 2 }])
  const last = await get(`/api/v1/systems/${d.uid}/data?ids=f`)
  expect(last.statusCode).toBe(200)
  expect(last.json()).toEqual({ f: [{ value: null, timestamp: ts }] })
  const from = Date.UTC(2025, 2, 10)
  const agg = await get(`/api/v1/systems/data/aggregated?targetIds=${d.uid}&dataIds=f&interval=1day&fn=mean&from=${from}&to=${from + 86_400_000}`)
  expect(agg.statusCode).toBe(200)
  expect(agg.json()[d.uid].f).toEqual([{ ts: from, v: 2 }])
})
