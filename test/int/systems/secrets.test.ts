// Device credentials in the System (docs/api.md#systems): shown in clear only to callers holding
// entities.systems.edit in the context company; a viewer gets null for every password field (and LwM2M's PSK), in the list (with and
// without `fields=communication`) and in the details.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { createSystem, type Json } from '../../helpers/systems.js'

const SECRETS = { msci: 'msci-secret-1', m3daPassword: 'm3da-secret-1', m3daRegistration: 'm3da-registration-1', rest: 'rest-secret-1', mqtt: 'mqtt-secret-1', lwm2m: '00112233445566778899aabbccddeeff' }
const COMMUNICATION = {
  msci: { host: '192.0.2.7:9191', user: 'admin', password: SECRETS.msci },
  m3da: { password: SECRETS.m3daPassword, registrationPassword: SECRETS.m3daRegistration },
  rest: { password: SECRETS.rest },
  mqtt: { password: SECRETS.mqtt },
  lwm2m: { pskIdentity: 'psk-identity-1', pskSecretHex: SECRETS.lwm2m }
}
const MASKED = {
  msci: { host: '192.0.2.7:9191', user: 'admin', password: null },
  m3da: { password: null, registrationPassword: null },
  rest: { password: null },
  mqtt: { password: null },
  lwm2m: { pskIdentity: 'psk-identity-1', pskSecretHex: null }
}

let stack: Stack
let viewer: TestUser
let editor: TestUser
let creator: TestUser
let label: string
let system: Json

beforeAll(async () => {
  stack = await startStack()
  viewer = await createUser(stack, { rights: ['entities.systems.view'] })
  editor = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.edit'] })
  creator = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.create'] })
  label = uniq('secrets')
  system = await createSystem(stack, { name: uniq('sys'), labels: [label], communication: COMMUNICATION })
  // A second system with only some credentials set: null protocols stay null.
  await createSystem(stack, { name: uniq('sys'), labels: [label], communication: { mqtt: { password: 'other-mqtt' } } })
})
afterAll(async () => { await stack?.close() })

const get = async (token: string, url: string): Promise<Json> => {
  const res = await stack.call(token, { method: 'GET', url })
  expect(res.statusCode).toBe(200)
  return res.json()
}
const listed = async (token: string, extra = ''): Promise<Json[]> => (await get(token, `/api/v1/systems?labels=${label}${extra}`)).items

describe('a viewer (entities.systems.view only)', () => {
  it('gets null for every password in the details, the rest of communication unchanged', async () => {
    const s = await get(viewer.token, `/api/v1/systems/${system.uid as string}`)
    expect(s.communication).toEqual(MASKED)
    expect(s.name).toBe(system.name)
  })

  it('gets null for every password in the list, with and without fields=communication', async () => {
    for (const extra of ['', '&fields=communication', '&fields=uid,communication']) {
      const items = await listed(viewer.token, extra)
      expect(items).toHaveLength(2)
      const mine = items.find((i) => i.communication.msci !== null)
      expect(mine?.communication).toEqual(MASKED)
      const other = items.find((i) => i.communication.msci === null)
      expect(other?.communication).toEqual({ msci: null, m3da: null, rest: null, mqtt: { password: null }, lwm2m: null })
    }
  })

  it('never sees a password anywhere in the answers', async () => {
    const bodies = [
      JSON.stringify(await get(viewer.token, `/api/v1/systems/${system.uid as string}`)),
      JSON.stringify(await get(viewer.token, `/api/v1/systems?labels=${label}`)),
      JSON.stringify(await get(viewer.token, `/api/v1/systems?labels=${label}&fields=communication`))
    ].join('\n')
    for (const secret of [...Object.values(SECRETS), 'other-mqtt']) expect(bodies).not.toContain(secret)
  })

  it('a creator without the edit right gets the system it created without its passwords', async () => {
    const res = await stack.call(creator.token, { method: 'POST', url: '/api/v1/systems', payload: { name: uniq('sys'), communication: { rest: { password: 'created-secret' } } } })
    expect(res.statusCode).toBe(200)
    expect(res.json().communication.rest).toEqual({ password: null })
    expect(res.body).not.toContain('created-secret')
  })
})

describe('an editor (entities.systems.edit)', () => {
  it('gets the passwords in clear in the details and in the list', async () => {
    expect((await get(editor.token, `/api/v1/systems/${system.uid as string}`)).communication).toEqual(COMMUNICATION)
    for (const extra of ['', '&fields=communication']) {
      const mine = (await listed(editor.token, extra)).find((i) => i.communication.msci !== null)
      expect(mine?.communication).toEqual(COMMUNICATION)
    }
  })

  it('the administrator (every right) too', async () => {
    expect((await get(stack.adminToken, `/api/v1/systems/${system.uid as string}`)).communication).toEqual(COMMUNICATION)
  })
})
