import { once } from 'node:events'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SMTPServer, type SMTPServerEnvelope } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { operationMail } from '../../../core/ports/notify.js'
import { openMailer } from '../../../storage/notify/open-mailer.js'
import { createOutboxMailer } from '../../../storage/notify/outbox-mailer.js'
import { createSmtpMailer } from '../../../storage/notify/smtp-mailer.js'

interface Delivered { envelope: SMTPServerEnvelope, raw: string }

const FROM = 'fleet@fleet.test'
const mail = operationMail({
  uid: '0123456789abcdef0123456789abcdef',
  operationType: 'SYSTEM_REBOOT',
  state: 'FINISHED',
  counters: [{ state: 'SUCCESS', count: 2 }, { state: 'FAILURE', count: 1 }],
  total: 3,
  startDate: Date.UTC(2024, 4, 1, 10),
  endDate: Date.UTC(2024, 4, 1, 11)
}, 'caller@example.com')

// A real SMTP server on 127.0.0.1:0 that hands every received message to the waiting test.
let smtp: SMTPServer
let smtpUrl: string
let waiting: Array<(d: Delivered) => void> = []
const nextMail = async (): Promise<Delivered> => await new Promise((resolve) => { waiting.push(resolve) })

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData (stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        const delivered = { envelope: session.envelope, raw: Buffer.concat(chunks).toString('utf8') }
        const waiters = waiting
        waiting = []
        for (const w of waiters) w(delivered)
        callback()
      })
    }
  })
  smtp.listen(0, '127.0.0.1')
  await once(smtp.server, 'listening')
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`
})
afterAll(async () => { await new Promise<void>((resolve) => { smtp.close(resolve) }) })

async function tempDir (): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-outbox-'))
  onTestFinished(async () => { await rm(dir, { recursive: true, force: true }) })
  return dir
}

function expectMessage (raw: string): void {
  expect(raw).toMatch(/^To: caller@example\.com\r$/m)
  expect(raw).toMatch(/^From: fleet@fleet\.test\r$/m)
  expect(raw).toMatch(/^Subject: Operation SYSTEM_REBOOT 0123456789abcdef0123456789abcdef finished\r$/m)
  expect(raw).toContain('Operation: 0123456789abcdef0123456789abcdef')
  expect(raw).toContain('SUCCESS: 2')
  expect(raw).toContain('Started: 2024-05-01T10:00:00.000Z')
}

describe('SMTP mailer', () => {
  it('delivers the operation e-mail to the SMTP server', async () => {
    const mailer = createSmtpMailer({ url: smtpUrl, from: FROM })
    onTestFinished(async () => { await mailer.close() })
    const arrived = nextMail()
    await mailer.send(mail)
    const { envelope, raw } = await arrived
    expect(envelope.rcptTo.map((r) => r.address)).toEqual(['caller@example.com'])
    expect(envelope.mailFrom === false ? undefined : envelope.mailFrom.address).toBe(FROM)
    expectMessage(raw)
  })

  it('rejects when the SMTP server cannot be reached', async () => {
    const mailer = createSmtpMailer({ url: 'smtp://127.0.0.1:1', from: FROM })
    onTestFinished(async () => { await mailer.close() })
    await expect(mailer.send(mail)).rejects.toThrow()
  })
})

describe('outbox mailer', () => {
  it('writes an RFC 5322 .eml file with To, Subject and body into the outbox', async () => {
    const dir = join(await tempDir(), 'outbox')
    const mailer = createOutboxMailer({ dir, from: FROM })
    await mailer.send(mail)
    const files = await readdir(dir)
    expect(files).toHaveLength(1)
    expect(files[0]).toMatch(/\.eml$/)
    const raw = await readFile(join(dir, files[0] ?? ''), 'utf8')
    expectMessage(raw)
    expect(raw).toMatch(/^Message-ID: <.+>\r$/m)
    expect(raw).toMatch(/^Date: .+\r$/m)
    expect(raw.replaceAll('\r\n', '')).not.toContain('\n') // CRLF line ends only
  })

  it('names files uniquely and in time order, also within one millisecond', async () => {
    const dir = await tempDir()
    let t = Date.UTC(2024, 0, 1)
    const mailer = createOutboxMailer({ dir, from: FROM, now: () => t })
    const subjects: string[] = []
    for (let i = 0; i < 12; i++) {
      if (i === 6) t += 1000
      subjects.push(`mail ${i}`)
      await mailer.send({ ...mail, subject: `mail ${i}` })
    }
    const files = (await readdir(dir)).sort()
    expect(new Set(files).size).toBe(12)
    expect(files.every((f) => f.startsWith('20240101T0000')) && files.every((f) => f.endsWith('.eml'))).toBe(true)
    const inOrder = await Promise.all(files.map(async (f) => /^Subject: (.*)\r$/m.exec(await readFile(join(dir, f), 'utf8'))?.[1]))
    expect(inOrder).toEqual(subjects)
  })
})

describe('openMailer', () => {
  it('writes to DATA_DIR/outbox without SMTP_URL', async () => {
    const dataDir = await tempDir()
    const mailer = openMailer({ SMTP_URL: undefined, SMTP_FROM: FROM, DATA_DIR: dataDir })
    onTestFinished(async () => { await mailer.close() })
    await mailer.send(mail)
    expect(await readdir(join(dataDir, 'outbox'))).toHaveLength(1)
  })

  it('sends over SMTP when SMTP_URL is set, writing nothing to the outbox', async () => {
    const dataDir = await tempDir()
    const mailer = openMailer({ SMTP_URL: smtpUrl, SMTP_FROM: FROM, DATA_DIR: dataDir })
    onTestFinished(async () => { await mailer.close() })
    const arrived = nextMail()
    await mailer.send(mail)
    expect((await arrived).envelope.rcptTo[0]?.address).toBe('caller@example.com')
    expect(await readdir(dataDir)).toEqual([])
  })
})
