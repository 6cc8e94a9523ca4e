// GET /api/v1/gateways and GET /api/v1/subscriptions (docs/api.md#systems; docs/api.md#using-the-api):
// exact lookups by identifier, paging, fields and sort as for systems, the context company's parts only, and the
// entities.systems.view right.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../helpers/factories.js'
import { createSystem, expectError, validImei, type Json } from '../helpers/systems.js'

let stack: Stack
let other: TestUser
const sn = (n: number): string => `SN-${tag}-${n}`
let tag: string
let gateways: Json[]
let theirs: Json

beforeAll(async () => {
  stack = await startStack()
  tag = uniq('p')
  other = await createUser(stack, { company: 'Parts Other Company', rights: ['entities.systems.view', 'entities.systems.create'] })
  gateways = []
  for (let n = 1; n <= 3; n++) {
    const s = await createSystem(stack, {
      name: `sys-${n}`,
      gateway: { imei: validImei(100 + n), serialNumber: sn(n), macAddress: `00:11:22:33:44:0${n}`, type: n === 3 ? 'router' : 'phone' },
      subscription: { identifier: `8933${tag}${n}`, operator: n === 3 ? 'ORANGE' : 'UNKNOWN', mobileNumber: `+3360000000${n}`, networkIdentifier: `20801${n}` }
    })
    gateways.push(s.gateway)
  }
  theirs = await createSystem(stack, {
    name: 'their-sys',
    gateway: { imei: validImei(200), serialNumber: `SN-${tag}-theirs` },
    subscription: { identifier: `8944${tag}`, operator: 'UNKNOWN', mobileNumber: '+33699999999' }
  }, { token: other.token })
})
afterAll(async () => { await stack?.close() })

const get = async (path: string, token = stack.adminToken) => await stack.call(token, { method: 'GET', url: `/api/v1/${path}` })
const page = async (path: string, token = stack.adminToken): Promise<Json> => {
  const res = await get(path, token)
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`)
  return res.json()
}
const serials = (p: Json): string[] => p.items.map((g: Json) => g.serialNumber)

describe('GET /api/v1/gateways', () => {
  it('lists the company\'s gateways with the fields of fleet-api.md §Gateway, oldest first', async () => {
    const p = await page('gateways')
    expect(p).toMatchObject({ count: 3, size: 3, offset: 0 })
    expect(p.items).toEqual(gateways)
    expect(Object.keys(p.items[0]).sort()).toEqual(['creationDate', 'imei', 'macAddress', 'serialNumber', 'type', 'uid'])
  })

  it('finds by serialNumber, imei, macAddress and uid (exact match, any of several values)', async () => {
    expect(serials(await page(`gateways?serialNumber=${sn(2)}`))).toEqual([sn(2)])
    expect(serials(await page(`gateways?imei=${validImei(103)}`))).toEqual([sn(3)])
    expect(serials(await page(`gateways?macAddress=${encodeURIComponent('00:11:22:33:44:01')}`))).toEqual([sn(1)])
    expect(serials(await page(`gateways?uid=${gateways[1]?.uid as string}`))).toEqual([sn(2)])
    expect(serials(await page(`gateways?serialNumber=${sn(1)},${sn(3)}`))).toEqual([sn(1), sn(3)])
    expect(serials(await page(`gateways?serialNumber=${sn(1)}&serialNumber=${sn(2)}`))).toEqual([sn(1), sn(2)])
    // Every filter must hold; a part of a serial number is not a match.
    expect((await page(`gateways?serialNumber=${sn(1)}&imei=${validImei(102)}`)).count).toBe(0)
    expect((await page(`gateways?serialNumber=SN-${tag}`)).count).toBe(0)
  })

  it('pages (offset, size, count the total), picks fields and sorts', async () => {
    const second = await page('gateways?size=1&offset=1')
    expect(second).toMatchObject({ count: 3, size: 1, offset: 1 })
    expect(serials(second)).toEqual([sn(2)])
    expect(await page('gateways?offset=5')).toEqual({ items: [], count: 3, size: 0, offset: 5 })
    expect((await page(`gateways?serialNumber=${sn(1)}&fields=serialNumber,imei`)).items).toEqual([{ serialNumber: sn(1), imei: validImei(101) }])
    expect(serials(await page('gateways?orderBy=serialNumber:desc'))).toEqual([sn(3), sn(2), sn(1)])
    expect(serials(await page('gateways?desc=creationDate'))).toEqual([sn(3), sn(2), sn(1)])
    expect(expectError(await get('gateways?orderBy=esn'), 'sort.invalid.field').errorParameters).toEqual(['esn', 'sortable: creationDate, imei, serialNumber, macAddress, type'])
  })

  it('never shows another company\'s gateway; that company sees its own only', async () => {
    expect((await page(`gateways?serialNumber=SN-${tag}-theirs`)).count).toBe(0)
    expect((await page(`gateways?uid=${theirs.gateway.uid as string}`)).count).toBe(0)
    const mine = await page('gateways', other.token)
    expect(serials(mine)).toEqual([`SN-${tag}-theirs`])
    expect((await page(`gateways?serialNumber=${sn(1)}`, other.token)).count).toBe(0)
  })

  it('still finds a gateway whose system was deleted (it stays the company\'s)', async () => {
    const s = await createSystem(stack, { name: 'short-lived', gateway: { serialNumber: sn(9) } })
    expect((await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${s.uid as string}` })).statusCode).toBe(200)
    expect((await page(`gateways?serialNumber=${sn(9)}`)).items).toEqual([s.gateway])
    expect((await stack.call(stack.adminToken, { method: 'DELETE', url: `/api/v1/systems/${(await createSystem(stack, { name: 'again', gateway: { uid: s.gateway.uid } })).uid as string}?deleteGateway=true` })).statusCode).toBe(200)
    expect((await page(`gateways?serialNumber=${sn(9)}`)).count).toBe(0)
  })

  it('needs entities.systems.view: 403 missing.rights', async () => {
    const user = await createUser(stack, { rights: ['entities.applications.view'] })
    const res = await get('gateways', user.token)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.systems.view'] })
  })
})

describe('GET /api/v1/subscriptions', () => {
  const ids = (p: Json): string[] => p.items.map((s: Json) => s.identifier)
  const iccid = (n: number): string => `8933${tag}${n}`

  it('lists the company\'s subscriptions with the fields of fleet-api.md §Subscription', async () => {
    const p = await page('subscriptions')
    expect(p).toMatchObject({ count: 3, size: 3, offset: 0 })
    expect(ids(p)).toEqual([iccid(1), iccid(2), iccid(3)])
    expect(p.items[0]).toMatchObject({ identifier: iccid(1), operator: 'UNKNOWN', mobileNumber: '+33600000001', networkIdentifier: '208011', state: 'INVENTORY' })
    expect(Object.keys(p.items[0]).sort()).toEqual(['activationImei', 'appletGeneration', 'confType', 'eid', 'formFactor', 'identifier', 'imeiLock',
      'ipAddress', 'mobileNumber', 'networkIdentifier', 'operator', 'orderId', 'productRefName', 'requestedIp', 'state', 'technology', 'uid'])
  })

  it('finds by identifier, mobileNumber, networkIdentifier, operator and uid', async () => {
    expect(ids(await page(`subscriptions?identifier=${iccid(2)}`))).toEqual([iccid(2)])
    expect(ids(await page(`subscriptions?mobileNumber=${encodeURIComponent('+33600000003')}`))).toEqual([iccid(3)])
    expect(ids(await page('subscriptions?networkIdentifier=208011'))).toEqual([iccid(1)])
    expect(ids(await page('subscriptions?operator=ORANGE'))).toEqual([iccid(3)])
    expect(ids(await page('subscriptions?operator=UNKNOWN&size=1'))).toEqual([iccid(1)])
    expect((await page('subscriptions?operator=UNKNOWN&size=1')).count).toBe(2)
    const uid = (await page(`subscriptions?identifier=${iccid(1)}`)).items[0].uid as string
    expect(ids(await page(`subscriptions?uid=${uid}`))).toEqual([iccid(1)])
    expect((await page(`subscriptions?identifier=${iccid(1)}&fields=identifier,operator`)).items).toEqual([{ identifier: iccid(1), operator: 'UNKNOWN' }])
    expect(ids(await page('subscriptions?orderBy=identifier:desc'))).toEqual([iccid(3), iccid(2), iccid(1)])
  })

  it('never shows another company\'s subscription', async () => {
    expect((await page(`subscriptions?identifier=8944${tag}`)).count).toBe(0)
    expect((await page('subscriptions?mobileNumber=%2B33699999999')).count).toBe(0)
    expect(ids(await page('subscriptions', other.token))).toEqual([`8944${tag}`])
  })

  it('needs entities.systems.view: 403 missing.rights', async () => {
    const user = await createUser(stack, { rights: ['entities.applications.view'] })
    const res = await get('subscriptions', user.token)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.systems.view'] })
  })
})
