import { randomBytes } from 'node:crypto'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import nodemailer from 'nodemailer'
import type { Mailer } from '../../core/ports/notify.js'

export interface OutboxMailerOptions {
  /** Where the .eml files go: `<DATA_DIR>/outbox`, created when missing. */
  dir: string
  /** SMTP_FROM */
  from: string
  /** Time source for the file names; Date.now by default. */
  now?: () => number
}

/**
 * docs/operations.md#bulk-operations: without an SMTP URL each e-mail is written as an RFC 5322 `.eml`
 * file. Names are `<UTC time>-<sequence>-<random>.eml`: they sort by time of writing (the sequence orders
 * mails of one millisecond within a process) and never collide between processes. A file appears under its
 * final name only once complete (written under a dot-prefixed temporary name, then renamed).
 */
export function createOutboxMailer ({ dir, from, now = Date.now }: OutboxMailerOptions): Mailer {
  // CRLF line ends as RFC 5322 §2.1 requires; the message is built whole in memory (buffer).
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }, { from })
  let sequence = 0
  return {
    async send (mail) {
      const info = await transport.sendMail({ to: mail.to, subject: mail.subject, text: mail.text })
      if (!Buffer.isBuffer(info.message)) throw new Error('outbox: the stream transport did not return a buffer')
      await mkdir(dir, { recursive: true })
      sequence = (sequence + 1) % 1_000_000
      const stamp = new Date(now()).toISOString().replace(/[-:]/g, '').replace('.', '')
      const name = `${stamp}-${String(sequence).padStart(6, '0')}-${randomBytes(4).toString('hex')}.eml`
      const temporary = join(dir, `.${name}.tmp`)
      await writeFile(temporary, info.message, { flag: 'wx' })
      await rename(temporary, join(dir, name))
    },
    async close () { transport.close() }
  }
}
