// What the alert evaluator is given of one system (core/domain/alert-rule.ts AlertFacts), built from the few fields a
// test sets, and conditions written the short way tests read best.
import type { AlertCondition, AlertFacts, AlertOperand, AlertOperator, AlertValue } from '../../core/domain/alert-rule.js'

export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0)

export interface FactsInput {
  now?: number
  data?: Record<string, AlertValue>
  system?: Partial<AlertFacts['system']>
}

/** A system heard from a minute ago, labelled "pilot", with no position, and the data given. */
export function factsOf (input: FactsInput = {}): AlertFacts {
  return {
    now: input.now ?? NOW,
    system: {
      uid: 'sys-1',
      name: 'Pump 7',
      commStatus: 'OK',
      lifeCycleState: 'DEPLOYED',
      labels: ['pilot', 'north'],
      commProtocols: ['MQTT'],
      lastCommDate: NOW - 60_000,
      latitude: null,
      longitude: null,
      ...input.system
    },
    data: new Map(Object.entries(input.data ?? {}))
  }
}

export const attr = (name: string): AlertOperand => ({ attributeId: { name } })
export const str = (valueStr: string): AlertOperand => ({ valueStr })
export const num = (valueNum: number): AlertOperand => ({ valueNum })
export const strs = (...valuesStr: string[]): AlertOperand => ({ valuesStr })

/** A condition `attribute op value` (or any operands, in the order given). */
export const cond = (operator: AlertOperator, ...operands: AlertOperand[]): AlertCondition => ({ operator, operands })
