// The fleet sections of a seed document (core/services/seed/fleet.seed.ts): applications, operator accounts,
// offers, setting templates, options and systems; idempotent, and all or nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPANY_NAME, startStack, type Stack } from '../helpers/stack.js'
import { seed, uniq } from '../helpers/factories.js'
import { getSystem, validImei, type Json } from '../helpers/systems.js'
import type { SeedDocument } from '../../core/services/seed.service.js'

let stack: Stack
beforeAll(async () => { stack = await startStack() })
afterAll(async () => { await stack.close() })

const TABLES = ['companies', 'applications', 'operator_accounts', 'offers', 'setting_templates', 'options', 'systems',
  'gateways', 'subscriptions', 'system_applications', 'system_options', 'comm_identifiers']

/** Every row of every fleet table, to compare the store before and after. */
async function snapshot (): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {}
  for (const t of TABLES) out[t] = (await stack.db.query(`SELECT * FROM ${t} ORDER BY 1, 2`)).rows
  return out
}

async function systemUid (name: string): Promise<string> {
  const { rows } = await stack.db.query<{ uid: string }>('SELECT uid FROM systems WHERE name = $1', [name])
  expect(rows).toHaveLength(1)
  return rows[0]?.uid ?? ''
}

const heartbeat = { state: 'ON', period: '1h', sla: { error: '3h', warning: '2h' }, serverOnly: false }

function fleetDoc (tag: string): SeedDocument {
  return {
    companies: [{ name: COMPANY_NAME }],
    applications: [
      { name: 'Seed firmware', type: `fw.${tag}`, revision: '1', category: 'FIRMWARE', communication: [{ type: 'M3DA', commIdType: 'SERIAL' }], data: [{ id: 'reboot', elementType: 'action', actionType: 'REBOOT' }] },
      { company: COMPANY_NAME, name: 'Seed app', type: `app.${tag}`, revision: '1', category: 'SOFTWARE', communication: [{ type: 'MQTT', commIdType: 'SERIAL' }], data: [{ id: 'temp', elementType: 'setting', type: 'double' }] }
    ],
    operatorAccounts: [{ company: COMPANY_NAME, name: `acc-${tag}`, operator: 'ORANGE' }],
    offers: [{ company: COMPANY_NAME, name: `offer-${tag}`, limit: 5_000_000, types: ['DATA', 'SMS'] }],
    templates: [{ company: COMPANY_NAME, name: `tpl-${tag}`, settings: [{ key: 'period', value: 60 }] }],
    options: [{ type: 'ROAMING', name: `roam-${tag}` }, { company: COMPANY_NAME, type: 'GENERAL', name: `lte-${tag}`, config: 'DATA_ONLY' }],
    systems: [
      {
        company: COMPANY_NAME,
        name: `active-${tag}`,
        type: 'router',
        labels: ['seeded'],
        metadata: { site: 'Lyon' },
        lifeCycleState: 'ACTIVE',
        gateway: { imei: validImei(Number.parseInt(tag, 16) % 1_000_000), serialNumber: `SN-A-${tag}` },
        subscription: { identifier: `8933-A-${tag}`, operator: 'ORANGE', operatorAccount: `acc-${tag}`, mobileNumber: '+33600000001' },
        applications: [{ type: `fw.${tag}`, revision: '1' }, { type: `app.${tag}`, revision: '1' }],
        communication: { mqtt: { password: 'mqtt-pass' } },
        offer: `offer-${tag}`,
        options: [{ type: 'ROAMING', name: `roam-${tag}` }, { type: 'GENERAL', name: `lte-${tag}` }],
        heartbeat
      },
      { company: COMPANY_NAME, name: `suspended-${tag}`, lifeCycleState: 'SUSPENDED', gateway: { serialNumber: `SN-S-${tag}` } },
      { company: COMPANY_NAME, name: `inventory-${tag}` }
    ]
  }
}

describe('seed: fleet sections', () => {
  it('creates the catalogue and the systems in the seeded states', async () => {
    const tag = uniq('a').slice(2)
    await seed(stack, fleetDoc(tag))
    const active = await getSystem(stack, await systemUid(`active-${tag}`))
    expect(active).toMatchObject({
      lifeCycleState: 'ACTIVE',
      type: 'router',
      labels: ['seeded'],
      metadata: { site: 'Lyon' },
      gateway: { serialNumber: `SN-A-${tag}` },
      subscription: { identifier: `8933-A-${tag}`, operator: 'ORANGE', mobileNumber: '+33600000001' },
      communication: { mqtt: { password: 'mqtt-pass' } },
      offer: { name: `offer-${tag}`, limit: 5_000_000, types: ['DATA', 'SMS'] },
      heartbeat
    })
    expect(active.activationDate).toEqual(expect.any(Number))
    expect(active.applications.map((a: Json) => a.type).sort()).toEqual([`app.${tag}`, `fw.${tag}`])
    const acc = await stack.db.query<{ uid: string }>('SELECT o.uid FROM operator_accounts o JOIN subscriptions s ON s.operator_account_uid = o.uid WHERE s.identifier = $1', [`8933-A-${tag}`])
    expect(acc.rows).toHaveLength(1)
    const options = (await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${active.uid as string}/network/options` })).json()
    expect(options.map((o: Json) => [o.type, o.name, o.config])).toEqual([['GENERAL', `lte-${tag}`, 'DATA_ONLY'], ['ROAMING', `roam-${tag}`, undefined]])
    const suspended = await getSystem(stack, await systemUid(`suspended-${tag}`))
    expect(suspended).toMatchObject({ lifeCycleState: 'SUSPENDED', heartbeat: null, offer: null })
    expect(suspended.activationDate).toEqual(expect.any(Number))
    expect(await getSystem(stack, await systemUid(`inventory-${tag}`))).toMatchObject({ lifeCycleState: 'INVENTORY', activationDate: null, gateway: null })
    const tpl = await stack.db.query<{ settings: unknown }>('SELECT settings FROM setting_templates WHERE name = $1', [`tpl-${tag}`])
    expect(tpl.rows[0]?.settings).toEqual([{ key: 'period', value: 60 }])
  })

  it('changes nothing when the same document is seeded twice', async () => {
    const tag = uniq('b').slice(2)
    await seed(stack, fleetDoc(tag))
    const before = await snapshot()
    const view = await getSystem(stack, await systemUid(`active-${tag}`))
    await seed(stack, fleetDoc(tag))
    expect(await snapshot()).toEqual(before)
    expect(await getSystem(stack, await systemUid(`active-${tag}`))).toEqual(view)
  })

  it('finds a seeded system by its exact name among many newer ones with similar names', async () => {
    const tag = uniq('c')
    const exact = { company: COMPANY_NAME, name: tag, gateway: { serialNumber: `SN-${tag}` } }
    await seed(stack, { systems: [exact] })
    const created = (await getSystem(stack, await systemUid(tag))).creationDate as number
    while (Date.now() <= created) await new Promise((resolve) => setImmediate(resolve))
    // Newer systems whose names contain the exact one come first in the default order (creation date, newest first).
    const doc: SeedDocument = { systems: [exact, ...Array.from({ length: 11 }, (_, i) => ({ company: COMPANY_NAME, name: `${tag}-${i}` }))] }
    await seed(stack, doc)
    const before = await snapshot()
    await seed(stack, doc)
    expect(await snapshot()).toEqual(before)
  })

  it('moves an existing seeded system to the life-cycle state the document now gives', async () => {
    const name = uniq('moving')
    await seed(stack, { systems: [{ company: COMPANY_NAME, name }] })
    await seed(stack, { systems: [{ company: COMPANY_NAME, name, lifeCycleState: 'SUSPENDED' }] })
    const s = await getSystem(stack, await systemUid(name))
    expect(s.lifeCycleState).toBe('SUSPENDED')
    expect(s.activationDate).toEqual(expect.any(Number))
    await seed(stack, { systems: [{ company: COMPANY_NAME, name, lifeCycleState: 'RETIRED' }] })
    await expect(seed(stack, { systems: [{ company: COMPANY_NAME, name, lifeCycleState: 'ACTIVE' }] })).rejects.toThrow(/system\.invalid\.state/)
    expect((await getSystem(stack, s.uid)).lifeCycleState).toBe('RETIRED')
  })

  it('rejects the whole document when one system is bad, writing nothing', async () => {
    const tag = uniq('d').slice(2)
    const good = fleetDoc(tag)
    const before = await snapshot()
    const withBadImei: SeedDocument = {
      ...good,
      companies: [{ name: `Seed company ${tag}` }],
      systems: [...good.systems ?? [], { company: COMPANY_NAME, name: `bad-${tag}`, gateway: { imei: '123' } }]
    }
    await expect(seed(stack, withBadImei)).rejects.toThrow(/gateway\.invalid\.imei/)
    expect(await snapshot()).toEqual(before)
    const withUnknownApp: SeedDocument = {
      ...good, systems: [...good.systems ?? [], { company: COMPANY_NAME, name: `bad-${tag}`, applications: [{ type: 'nope', revision: '0' }] }]
    }
    await expect(seed(stack, withUnknownApp)).rejects.toThrow(/unknown application/)
    const withTakenSerial: SeedDocument = {
      ...good, systems: [...good.systems ?? [], { company: COMPANY_NAME, name: `bad-${tag}`, gateway: { serialNumber: `SN-A-${tag}` } }]
    }
    await expect(seed(stack, withTakenSerial)).rejects.toThrow(/system\.invalid\.assignment/)
    const withUnknownOffer: SeedDocument = { ...good, systems: [{ company: COMPANY_NAME, name: `bad-${tag}`, offer: 'no-such-offer' }] }
    await expect(seed(stack, withUnknownOffer)).rejects.toThrow(/unknown offer/)
    expect(await snapshot()).toEqual(before)
  })
})
