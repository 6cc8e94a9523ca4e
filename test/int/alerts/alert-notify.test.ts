// What a raised alert does (docs/alerts.md#hooks, #e-mails, #actions; decision 0032): the alert.notify job POSTs the
// signed event to each hook of the rule (a real receiver on 127.0.0.1:0, retried after a 500), e-mails the rule's
// addresses (the outbox), tells the live stream, starts the rule's actions under its owner's rights within their
// cooldown and maxOperationsPerHour, and ends with notify_pending cleared; run again, it does nothing twice. The alerts
// are written here as the evaluation writes them, with notify_pending set, then handed to onAlerts.
import { createHmac } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq } from '../../helpers/factories.js'
import { recordingReceiver } from '../../helpers/http-receiver.js'
import { createSystems, until } from '../../helpers/operations.js'
import { openStream } from '../../helpers/stream.js'

const SECRET = 'alert-hook-secret'
const TEMP = { operator: 'GT', operands: [{ attributeId: { name: 'DATA.temp' } }, { valueNum: 40 }] }

let stack: Stack
let receiver: Awaited<ReturnType<typeof recordingReceiver>>

beforeAll(async () => {
  receiver = await recordingReceiver()
  stack = await startStack({ listen: true, env: { CALLBACK_ALLOW_PRIVATE: 'true', CALLBACK_SECRET: SECRET, CALLBACK_RETRY_BASE_MS: '100' } })
})
afterAll(async () => {
  await stack.close()
  await receiver.close()
})

async function newRule (body: Record<string, unknown>, token = stack.adminToken): Promise<string> {
  const res = await stack.call(token, { method: 'POST', url: '/api/v2/alertrules', payload: { name: uniq('rule'), conditions: [TEMP], ...body } })
  expect(res.statusCode, res.body).toBe(200)
  return (res.json() as { uid: string }).uid
}

/**
 * An alert of the rule on the system, committed as the evaluation commits a stateless rule's (closed when raised, so
 * that one system may have several), and queued for its notification.
 */
async function raise (rule: string, system: string): Promise<string> {
  const uid = uniq('alert')
  await stack.db.query(`INSERT INTO alerts (uid, rule_uid, system_uid, company_uid, date, closed_date, state, attributes, notify_pending)
    VALUES ($1, $2, $3, $4, $5, $5, 'CLOSED', $6::jsonb, true)`,
  [uid, rule, system, stack.companyUid, Date.now(), JSON.stringify([{ id: { name: 'DATA.temp' }, value: { valueNum: 41.5 } }])])
  await stack.ctx.services.alertNotify.onAlerts([uid])
  return uid
}

async function notified (alert: string): Promise<void> {
  const pending = async (): Promise<boolean> =>
    (await stack.db.query<{ p: boolean }>('SELECT notify_pending AS p FROM alerts WHERE uid = $1', [alert])).rows[0]?.p === true
  await until(`alert ${alert} notified`, async () => !await pending())
}

const outbox = (): string => join(stack.config.DATA_DIR, 'outbox')
async function mailsAbout (alert: string): Promise<string[]> {
  const files = (await readdir(outbox()).catch(() => [])).filter((f) => f.endsWith('.eml'))
  const texts = await Promise.all(files.map(async (f) => await readFile(join(outbox(), f), 'utf8')))
  return texts.filter((t) => t.includes(alert))
}

/** The operations the alert's actions started, from alert_actions. */
async function startedBy (alert: string): Promise<string[]> {
  const { rows } = await stack.db.query<{ op: string | null }>('SELECT operation_uid AS op FROM alert_actions WHERE alert_uid = $1', [alert])
  return rows.map((r) => r.op ?? 'none')
}

describe('hooks, e-mails and the live stream', () => {
  it('POSTs the signed event with Basic auth to each hook, again after a 500, and e-mails each address once', async () => {
    const [system] = await createSystems(stack, 1, uniq('hot'))
    const rule = await newRule({ message: 'Too hot', emails: ['ops@example.com', 'noc@example.com'] })
    const path = `/hook/${uniq('p')}`
    receiver.failures.set(path, 1)
    const hook = await stack.call(stack.adminToken, { method: 'POST', url: `/api/v1/alerts/rules/${rule}/hooks`, payload: { callback: `http://ops:s%40cret@${receiver.origin}${path}` } })
    expect(hook.statusCode, hook.body).toBe(200)
    const stream = await openStream(stack, stack.adminToken)
    await stream.ask({ action: 'subscribe', systems: { uids: [system] } })

    const alert = await raise(rule, system as string)
    await until('the hook tried twice', () => receiver.received.filter((r) => r.path === path).length >= 2)
    await notified(alert)
    for (const r of receiver.received.filter((x) => x.path === path)) {
      expect(r.headers['x-fleet-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`)
      expect(r.headers.authorization).toBe(`Basic ${Buffer.from('ops:s@cret').toString('base64')}`)
      const e = JSON.parse(r.body) as Record<string, unknown>
      expect(e).toEqual({ name: 'event.alert.rule.triggered', date: expect.any(Number), content: { 'alert.uid': alert, 'rule.uid': rule, 'target.uid': system } })
    }
    const mails = await mailsAbout(alert)
    expect(mails).toHaveLength(2)
    expect(mails.join('\n')).toMatch(/To: ops@example\.com/)
    expect(mails.join('\n')).toMatch(/To: noc@example\.com/)
    expect(mails[0]).toContain('Too hot')
    expect(mails[0]).toContain('DATA.temp: 41.5')
    const event = await stream.take((m) => m.event === 'alert', 5000, 'the alert event')
    expect(event).toMatchObject({ event: 'alert', system, uid: alert, rule })
    await stream.close()

    // Once notified, the job does nothing: no second e-mail, no hook try queued.
    await stack.ctx.services.alertNotify.notify(alert)
    expect(await mailsAbout(alert)).toHaveLength(2)
    const hooks = await stack.db.query("SELECT 1 FROM jobs WHERE name = 'alert.hook' AND payload->>'alertUid' = $1", [alert])
    expect(hooks.rows).toHaveLength(0)
  })
})

describe('actions', () => {
  it('starts a REBOOT of the alert\'s system once, and none for a second alert within the cooldown', async () => {
    const [system] = await createSystems(stack, 1, uniq('act')) as [string]
    const rule = await newRule({ actions: [{ operation: 'REBOOT', parameters: {}, cooldownMinutes: 30 }] })
    const first = await raise(rule, system)
    await notified(first)
    const [op] = await startedBy(first)
    const res = await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/operations/${op ?? ''}` })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ operationType: 'SYSTEM_REBOOT', target: system, total: 1 })

    const second = await raise(rule, system)
    await notified(second)
    expect(await startedBy(second)).toEqual([])
  })

  it('starts at most maxOperationsPerHour operations of a rule', async () => {
    const systems = await createSystems(stack, 3, uniq('budget'))
    const rule = await newRule({ actions: [{ operation: 'REBOOT', cooldownMinutes: 0 }], maxOperationsPerHour: 2 })
    const alerts: string[] = []
    for (const s of systems) alerts.push(await raise(rule, s))
    for (const a of alerts) await notified(a)
    const started = (await Promise.all(alerts.map(startedBy))).flat()
    expect(started).toHaveLength(2)
    expect(started).not.toContain('none')
  })

  it('starts nothing for an owner without the operation\'s right', async () => {
    const owner = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.edit'] })
    const [system] = await createSystems(stack, 1, uniq('norights')) as [string]
    const rule = await newRule({ actions: [{ operation: 'REBOOT' }] }, owner.token)
    const alert = await raise(rule, system)
    await notified(alert)
    expect(await startedBy(alert)).toEqual([])
    const metrics = await stack.api.inject({ method: 'GET', url: '/metrics' })
    expect(metrics.body).toMatch(/fleet_alert_actions_total\{outcome="no_rights"\} [1-9]/)
  })
})
