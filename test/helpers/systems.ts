// Helpers for the systems tests: create through HTTP, valid identifiers, a seeded catalogue, row counts.
import type { LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import { imeiCheckDigit } from '../../core/domain/identifiers.js'
import type { Stack } from './stack.js'
import { COMPANY_NAME } from './stack.js'
import { seed } from './factories.js'

export type Body = Record<string, unknown>
export type Json = Record<string, any>

/** A well-formed IMEI (15 digits, Luhn check digit) made from a number: validImei(1), validImei(2), … differ. */
export function validImei (n: number): string {
  const first14 = String(35_000_000_000_000 + n).padStart(14, '0').slice(-14)
  return first14 + imeiCheckDigit(first14)
}

/** POST /api/v1/systems as `token` (default: the administrator), optionally in another context company. */
export async function postSystem (stack: Stack, body: Body, opts: { token?: string, company?: string } = {}): Promise<LightMyRequestResponse> {
  const url = opts.company === undefined ? '/api/v1/systems' : `/api/v1/systems?company=${opts.company}`
  return await stack.call(opts.token ?? stack.adminToken, { method: 'POST', url, payload: body })
}

/** Creates a system and answers the System; fails the test when the service refuses. */
export async function createSystem (stack: Stack, body: Body, opts: { token?: string, company?: string } = {}): Promise<Json> {
  const res = await postSystem(stack, body, opts)
  if (res.statusCode !== 200) throw new Error(`create system failed: ${res.statusCode} ${res.body}`)
  return res.json()
}

/** PUT /api/v1/systems/{uid}. */
export async function putSystem (stack: Stack, uid: string, body: Body, opts: { token?: string } = {}): Promise<LightMyRequestResponse> {
  return await stack.call(opts.token ?? stack.adminToken, { method: 'PUT', url: `/api/v1/systems/${uid}`, payload: body })
}

export async function getSystem (stack: Stack, uid: string): Promise<Json> {
  const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/systems/${uid}` })
  if (res.statusCode !== 200) throw new Error(`get system failed: ${res.statusCode} ${res.body}`)
  return res.json()
}

/** Asserts a 400 business error with the code (docs/api.md#using-the-api). */
export function expectError (res: LightMyRequestResponse, code: string, status = 400): Json {
  expect({ status: res.statusCode, error: res.json().error }).toEqual({ status, error: code })
  expect(Array.isArray(res.json().errorParameters)).toBe(true)
  return res.json()
}

export interface RowCounts { systems: number, gateways: number, subscriptions: number, systemApplications: number, commIdentifiers: number }

/** Rows of what a create or edit writes, counted straight in the store. */
export async function countRows (stack: Stack): Promise<RowCounts> {
  const n = async (table: string): Promise<number> =>
    (await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]?.n ?? 0
  return {
    systems: await n('systems'),
    gateways: await n('gateways'),
    subscriptions: await n('subscriptions'),
    systemApplications: await n('system_applications'),
    commIdentifiers: await n('comm_identifiers')
  }
}

/** Asserts that the request is refused with `code` and that nothing was written. */
export async function expectRejected (stack: Stack, request: () => Promise<LightMyRequestResponse>, code: string): Promise<Json> {
  const before = await countRows(stack)
  const body = expectError(await request(), code)
  expect(await countRows(stack)).toEqual(before)
  return body
}

export const OTHER_COMPANY = 'Other Company'

export interface Catalogue {
  /** Application uids by key `type@revision`. */
  apps: Record<string, string>
  /** Operator accounts by name. */
  accounts: Record<string, string>
  otherCompanyUid: string
}

/**
 * Seeds, through the seed service (factories.seed): public applications (two revisions of one type, two sharing
 * the MQTT protocol), one application of the stack's company, a private one of OTHER_COMPANY, operator accounts
 * of both companies, an offer and options. Answers the uids.
 */
export async function seedCatalogue (stack: Stack): Promise<Catalogue> {
  await seed(stack, {
    companies: [{ name: OTHER_COMPANY }],
    applications: [
      { name: 'Public firmware', type: 'fw.public', revision: '1.0', category: 'FIRMWARE', communication: [{ type: 'M3DA', commIdType: 'SERIAL' }], data: [{ id: 'reboot', elementType: 'action', actionType: 'REBOOT' }] },
      { name: 'Public firmware', type: 'fw.public', revision: '2.0', category: 'FIRMWARE', communication: [{ type: 'M3DA', commIdType: 'SERIAL' }] },
      { name: 'MQTT agent', type: 'app.mqtt', revision: '1', category: 'SOFTWARE', communication: [{ type: 'MQTT', commIdType: 'SERIAL' }], data: [{ id: 'temp', elementType: 'variable', type: 'double' }] },
      { name: 'MQTT other agent', type: 'app.mqtt2', revision: '1', category: 'SOFTWARE', communication: [{ type: 'MQTT', commIdType: 'SERIAL' }] },
      { company: COMPANY_NAME, name: 'Own REST app', type: 'app.own', revision: '1', category: 'SOFTWARE', communication: [{ type: 'REST', commIdType: 'SERIAL' }] },
      { company: OTHER_COMPANY, name: 'Other private app', type: 'app.other', revision: '1', category: 'SOFTWARE', communication: [{ type: 'REST', commIdType: 'SERIAL' }] }
    ],
    operatorAccounts: [
      { company: COMPANY_NAME, name: 'Orange account', operator: 'ORANGE' },
      { company: OTHER_COMPANY, name: 'Other account', operator: 'ORANGE' }
    ],
    offers: [{ company: COMPANY_NAME, name: 'Basic offer', limit: 1_000_000, types: ['DATA'] }],
    options: [
      { type: 'ROAMING', name: 'Europe' },
      { type: 'GENERAL', name: 'LTE', config: 'DATA_ONLY' },
      { type: 'SERVICE', name: 'APN', config: 'STATIC_IP' }
    ]
  })
  const apps = await stack.db.query<{ uid: string, type: string, revision: string }>('SELECT uid, type, revision FROM applications')
  const accounts = await stack.db.query<{ uid: string, name: string }>('SELECT uid, name FROM operator_accounts')
  const other = await stack.db.query<{ uid: string }>('SELECT uid FROM companies WHERE name = $1', [OTHER_COMPANY])
  return {
    apps: Object.fromEntries(apps.rows.map((r) => [`${r.type}@${r.revision}`, r.uid])),
    accounts: Object.fromEntries(accounts.rows.map((r) => [r.name, r.uid])),
    otherCompanyUid: other.rows[0]?.uid ?? ''
  }
}

/** The uid of an application of the catalogue; fails loudly on a typo. */
export function appUid (c: Catalogue, key: string): string {
  const uid = c.apps[key]
  if (uid === undefined) throw new Error(`no application ${key}`)
  return uid
}
