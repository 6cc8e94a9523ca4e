// From a device's point to a hook (docs/alerts.md; decision 0032): a temperature over a rule's threshold sent over
// MQTT raises an alert in the commit that stores it, and the alert.notify job queued after that commit POSTs the signed
// event to the rule's hook, a real receiver on 127.0.0.1:0.
import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { recordingReceiver } from '../../helpers/http-receiver.js'
import { connectDevice, createDevice, endAll, publish } from '../../helpers/devices.js'
import { until } from '../../helpers/operations.js'

const SECRET = 'alert-e2e-secret'

let stack: Stack
let receiver: Awaited<ReturnType<typeof recordingReceiver>>

beforeAll(async () => {
  receiver = await recordingReceiver()
  stack = await startStack({ listen: true, env: { CALLBACK_ALLOW_PRIVATE: 'true', CALLBACK_SECRET: SECRET } })
})
afterAll(async () => {
  await stack.close()
  await receiver.close()
})

it('a point over the threshold sent over MQTT reaches the rule\'s hook, signed', async () => {
  const device = await createDevice(stack)
  const rule = await stack.call(stack.adminToken, {
    method: 'POST',
    url: '/api/v2/alertrules',
    payload: { name: 'Hot', conditions: [{ operator: 'GT', operands: [{ attributeId: { name: 'DATA.temp' } }, { valueNum: 40 }] }] }
  })
  expect(rule.statusCode, rule.body).toBe(200)
  const ruleUid = (rule.json() as { uid: string }).uid
  const path = `/hook/${uniq('e2e')}`
  const hook = await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/alerts/rules/${ruleUid}/hooks`, payload: { callback: `http://${receiver.origin}${path}` } })
  expect(hook.statusCode, hook.body).toBe(200)

  const client = await connectDevice(stack.mqttUrl, device.serial, device.mqttPassword as string)
  try {
    expect(await publish(client, `${device.serial}/messages/json`, JSON.stringify({ temp: 20 }))).not.toBe('closed')
    expect(await publish(client, `${device.serial}/messages/json`, JSON.stringify({ temp: 45 }))).not.toBe('closed')
  } finally {
    await endAll(client)
  }

  await until('the hook POST', () => receiver.received.some((r) => r.path === path))
  const posts = receiver.received.filter((r) => r.path === path)
  expect(posts).toHaveLength(1)
  const r = posts[0] as (typeof posts)[number]
  expect(r.headers['x-fleet-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`)
  const event = JSON.parse(r.body) as { name: string, content: Record<string, string> }
  expect(event.name).toBe('event.alert.rule.triggered')
  expect(event.content['rule.uid']).toBe(ruleUid)
  expect(event.content['target.uid']).toBe(device.uid)
  const alerts = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v2/alerts?ruleId=${ruleUid}` })
  expect((alerts.json() as Array<{ uid: string }>).map((a) => a.uid)).toEqual([event.content['alert.uid']])
})
