import { join } from 'node:path'
import type { Config } from '../../core/config.js'
import type { Mailer } from '../../core/ports/notify.js'
import { createOutboxMailer } from './outbox-mailer.js'
import { createSmtpMailer } from './smtp-mailer.js'

/** SMTP when SMTP_URL is set, otherwise .eml files in DATA_DIR/outbox (docs/architecture.md, e-mail row). */
export function openMailer (config: Pick<Config, 'SMTP_URL' | 'SMTP_FROM' | 'DATA_DIR'>): Mailer {
  if (config.SMTP_URL !== undefined) return createSmtpMailer({ url: config.SMTP_URL, from: config.SMTP_FROM })
  return createOutboxMailer({ dir: join(config.DATA_DIR, 'outbox'), from: config.SMTP_FROM })
}
