// The "operation finished" e-mail (docs/operations.md#bulk-operations; docs/operations.md#bulk-operations): with
// `notify: true` the caller gets one when the operation finishes — an .eml file in DATA_DIR/outbox by default,
// over SMTP when SMTP_URL is set (a real smtp-server on 127.0.0.1:0 here).
import { once } from 'node:events'
import { readdir, readFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { SMTPServer, type SMTPServerEnvelope } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../../helpers/factories.js'
import { createSystems, postLabel, started, until, waitFinished } from '../../helpers/operations.js'

const RIGHTS = ['entities.systems.view', 'entities.systems.edit', 'entities.systems.create']

/** The unfolded header lines of a raw RFC 5322 message. */
function headers (raw: string): Record<string, string> {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? ''
  const out: Record<string, string> = {}
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':')
    if (i > 0) out[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim()
  }
  return out
}

const notifyJobs = async (stack: Stack): Promise<number> =>
  (await stack.db.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE name = 'operation.notify'")).rows[0]?.n ?? 0

describe('without SMTP_URL: the outbox', () => {
  let stack: Stack
  let caller: TestUser
  beforeAll(async () => {
    stack = await startStack()
    caller = await createUser(stack, { rights: RIGHTS })
  })
  afterAll(async () => { await stack.close() })

  const outbox = (): string => join(stack.config.DATA_DIR, 'outbox')
  const emls = async (): Promise<string[]> => (await readdir(outbox()).catch(() => [])).filter((f) => f.endsWith('.eml'))

  it('writes one .eml to the caller when an operation with notify finishes, none for notify false', async () => {
    const label = uniq('mail')
    await createSystems(stack, 2, label, [label], caller.token)
    // The parent does not notify; its child (started after it finished) does.
    const quiet = await started(postLabel(stack, { labels: { add: ['a'] }, criteria: { labels: [label] }, scheduledTime: Date.now() + 500 }, caller.token))
    const loud = await started(postLabel(stack, { labels: { add: ['b'] }, dependsOn: { operation: quiet }, notify: true }, caller.token))
    expect(await emls()).toEqual([])
    const op = await waitFinished(stack, loud)
    expect(op.notify).toBe(true)
    await until('the e-mail', async () => (await emls()).length > 0)
    await until('no notify job left', async () => await notifyJobs(stack) === 0)
    const files = await emls()
    expect(files).toHaveLength(1)
    const raw = await readFile(join(outbox(), files[0] ?? ''), 'utf8')
    const h = headers(raw)
    expect(h.to).toBe(caller.email)
    expect(h.subject).toContain(loud)
    expect(h.subject).toContain('SYSTEM_LABEL')
    expect(h.subject).toMatch(/finished/i)
    expect(raw).toContain('SUCCESS: 2')
    expect(raw).toContain(`Operation ${loud} has finished.`)
    expect(raw).not.toContain(quiet)
  })

  it('a cancelled operation with notify also mails its end', async () => {
    const label = uniq('mailc')
    await createSystems(stack, 1, label, [label], caller.token)
    const before = (await emls()).length
    const uid = await started(postLabel(stack, { labels: { add: ['a'] }, criteria: { labels: [label] }, scheduledTime: Date.now() + 60_000, notify: true }, caller.token))
    const res = await stack.call(caller.token, { method: 'POST', url: `/api/v1/operations/${uid}/cancel` })
    expect(res.json().state).toBe('FINISHED')
    await until('the e-mail', async () => (await emls()).length > before)
    const mine = []
    for (const f of await emls()) if ((await readFile(join(outbox(), f), 'utf8')).includes(uid)) mine.push(f)
    expect(mine).toHaveLength(1)
    expect(await readFile(join(outbox(), mine[0] ?? ''), 'utf8')).toContain('CANCELLED: 1')
  })
})

describe('with SMTP_URL: over SMTP', () => {
  interface Delivered { envelope: SMTPServerEnvelope, raw: string }
  const delivered: Delivered[] = []
  let smtp: SMTPServer
  let stack: Stack
  let caller: TestUser

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData (stream, session, callback) {
        const chunks: Buffer[] = []
        stream.on('data', (c: Buffer) => chunks.push(c))
        stream.on('end', () => {
          delivered.push({ envelope: session.envelope, raw: Buffer.concat(chunks).toString('utf8') })
          callback()
        })
      }
    })
    smtp.listen(0, '127.0.0.1')
    await once(smtp.server, 'listening')
    const port = (smtp.server.address() as AddressInfo).port
    stack = await startStack({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: 'ops@fleet.test' } })
    caller = await createUser(stack, { rights: RIGHTS })
  })
  afterAll(async () => {
    await stack.close()
    await new Promise<void>((resolve) => { smtp.close(resolve) })
  })

  it('sends the e-mail to the caller through the SMTP server, and writes no .eml', async () => {
    const label = uniq('smtp')
    await createSystems(stack, 3, label, [label], caller.token)
    const uid = await started(postLabel(stack, { labels: { add: ['a'] }, criteria: { labels: [label] }, notify: true }, caller.token))
    await waitFinished(stack, uid)
    await until('the SMTP delivery', () => delivered.some((d) => d.raw.includes(uid)))
    const mail = delivered.find((d) => d.raw.includes(uid)) as Delivered
    expect(mail.envelope.rcptTo.map((r) => r.address)).toEqual([caller.email])
    expect(mail.envelope.mailFrom === false ? undefined : mail.envelope.mailFrom.address).toBe('ops@fleet.test')
    const h = headers(mail.raw)
    expect(h.to).toBe(caller.email)
    expect(h.subject).toContain(uid)
    expect(mail.raw).toContain('SUCCESS: 3')
    expect(await readdir(join(stack.config.DATA_DIR, 'outbox')).catch(() => [])).toEqual([])
  })
})
