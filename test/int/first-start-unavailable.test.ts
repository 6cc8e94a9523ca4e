// The first start binds its ports before it creates the first company, administrator and API client (bin/serve.ts):
// a token request meanwhile answers 503 service.unavailable with Retry-After, not invalid_client (which reads as a
// wrong secret), and the sign-in page the same; once the first company exists, they work.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { loadConfig } from '../../core/config.js'
import { bootstrapStore, openOperationParts, systemClock } from '../../bin/context.js'
import { assembleService, type Service } from '../../bin/serve.js'
import { createMemoryCounter } from '../../storage/rate/memory-counter.js'
import { createTestDb, type TestDb } from '../helpers/test-db.js'

const EMAIL = 'first@test.local'
const PASSWORD = 'first-password'
const CLIENT = 'first-client'
const SECRET = 'first-secret'

let testDb: TestDb
let service: Service
let api: FastifyInstance
const dataDir = mkdtempSync(join(tmpdir(), 'fleet-first-start-'))
beforeAll(async () => {
  testDb = await createTestDb()
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PASSWORD_HASH_COST: '10',
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    FLEET_ADMIN_EMAIL: EMAIL,
    FLEET_ADMIN_PASSWORD: PASSWORD,
    FLEET_CLIENT_ID: CLIENT,
    FLEET_CLIENT_SECRET: SECRET
  })
  const log = pino({ level: 'silent' })
  const parts = await openOperationParts(config, testDb.db, log, `fleet-test-${Math.random().toString(36).slice(2)}`)
  // As startService does: everything built, nothing created yet.
  service = await assembleService(config, log, { db: testDb.db, rateCounter: createMemoryCounter(), clock: systemClock, ...parts }, { bootstrap: false, transports: [] })
  api = service.api
  await api.ready()
})
afterAll(async () => {
  await service.close()
  await testDb.drop()
  rmSync(dataDir, { recursive: true, force: true })
})

const passwordGrant = async (): Promise<{ status: number, retryAfter: unknown, body: unknown }> => {
  const res = await api.inject({ method: 'POST', url: '/api/oauth/token', payload: { grant_type: 'password', username: EMAIL, password: PASSWORD, client_id: CLIENT, client_secret: SECRET } })
  return { status: res.statusCode, retryAfter: res.headers['retry-after'], body: res.json() }
}

describe('before the first company exists', () => {
  it('answers a token request and a sign-in 503 with Retry-After; once created, the same requests work', async () => {
    expect(await passwordGrant()).toEqual({ status: 503, retryAfter: '1', body: { error: 'service.unavailable', errorParameters: [] } })
    const signIn = await api.inject({
      method: 'POST',
      url: '/api/oauth/authorize',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ response_type: 'code', client_id: CLIENT, username: EMAIL, password: PASSWORD }).toString()
    })
    expect(signIn.statusCode).toBe(503)
    expect(signIn.headers['retry-after']).toBe('1')

    await bootstrapStore(service.ctx, testDb.db)
    const issued = await passwordGrant()
    expect(issued.status).toBe(200)
    expect(issued.retryAfter).toBeUndefined()
  })
})
