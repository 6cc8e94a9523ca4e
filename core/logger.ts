import type { Logger as PinoLogger } from 'pino'

/** The structured JSON logger (pino) every part receives. */
export type Logger = PinoLogger
