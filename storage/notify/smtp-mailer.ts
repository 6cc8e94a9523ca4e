import nodemailer from 'nodemailer'
import type { Mailer } from '../../core/ports/notify.js'

export interface SmtpMailerOptions {
  /** SMTP_URL: smtp://user:pass@host:port or smtps://… (nodemailer reads the options of its query string too). */
  url: string
  /** SMTP_FROM */
  from: string
}

/** docs/operations.md#bulk-operations: with an SMTP URL configured, e-mails go out over SMTP. */
export function createSmtpMailer ({ url, from }: SmtpMailerOptions): Mailer {
  const transport = nodemailer.createTransport(url, { from })
  return {
    async send (mail) {
      await transport.sendMail({ to: mail.to, subject: mail.subject, text: mail.text })
    },
    async close () { transport.close() }
  }
}
