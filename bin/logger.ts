// The service's logger, apart from bin/context.ts so that a CLI command that needs only a logger loads only pino.
import { pino, type DestinationStream } from 'pino'
import { PinoPretty } from 'pino-pretty'
import type { Config } from '../core/config.js'
import type { Logger } from '../core/logger.js'
import { REDACTED, REDACTED_PATHS, redactLine } from '../core/security/log-redaction.js'

/**
 * The service's logger: JSON lines on stdout, or LOG_FORMAT=pretty for people. Secrets are masked in every line
 * (core/security/log-redaction.ts); `destination` is for tests that read what is written.
 */
export function createLogger (config: Pick<Config, 'LOG_LEVEL'> & Partial<Pick<Config, 'LOG_FORMAT'>>, destination?: DestinationStream): Logger {
  const out = config.LOG_FORMAT === 'pretty'
    ? PinoPretty({ destination: destination ?? 1, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: destination === undefined })
    : destination ?? pino.destination(1)
  return pino({
    level: config.LOG_LEVEL,
    redact: { paths: REDACTED_PATHS, censor: REDACTED },
    // The last layer: whatever a log call wrote, the finished line is scrubbed before it leaves.
    hooks: { streamWrite: redactLine }
  }, out)
}
