import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  callbackRetryDelay, MAX_CALLBACK_ATTEMPTS, operationMail, operationStateEvent, signBody, type FinishedOperation
} from '../../core/ports/notify.js'

const counters = [
  { state: 'PENDING', count: 0 }, { state: 'IN_PROGRESS', count: 0 }, { state: 'SUCCESS', count: 2 },
  { state: 'FAILURE', count: 1 }, { state: 'BEING_CANCELLED', count: 0 }, { state: 'CANCELLED', count: 0 }
]
const op: FinishedOperation = {
  uid: '0123456789abcdef0123456789abcdef',
  operationType: 'SYSTEM_REBOOT',
  state: 'FINISHED',
  counters,
  total: 3,
  startDate: Date.UTC(2024, 4, 1, 10, 0, 0),
  endDate: Date.UTC(2024, 4, 1, 10, 5, 30)
}

describe('operationStateEvent', () => {
  it('builds the conventions.md callback body with the given date', () => {
    const event = operationStateEvent(op, 1_714_557_600_123)
    expect(JSON.parse(JSON.stringify(event))).toEqual({
      name: 'event.operation.state.changed',
      date: 1_714_557_600_123,
      content: { operation: op.uid, operationType: 'SYSTEM_REBOOT', state: 'FINISHED', counters, total: 3 }
    })
  })

  it('carries only the spec fields, not the rest of the operation', () => {
    const event = operationStateEvent(op, 0)
    expect(Object.keys(event.content).sort()).toEqual(['counters', 'operation', 'operationType', 'state', 'total'])
    expect(Object.keys(event.content.counters[0] ?? {}).sort()).toEqual(['count', 'state'])
  })
})

describe('callbackRetryDelay', () => {
  const delays: number[] = []
  for (let attempt = 1; callbackRetryDelay(attempt) !== undefined; attempt++) delays.push(callbackRetryDelay(attempt) ?? 0)

  it('gives at least 5 tries spread over at least 10 minutes (conventions.md §Callbacks)', () => {
    expect(delays.length + 1).toBe(MAX_CALLBACK_ATTEMPTS)
    expect(MAX_CALLBACK_ATTEMPTS).toBeGreaterThanOrEqual(5)
    const span = delays.reduce((a, b) => a + b, 0)
    expect(span).toBeGreaterThanOrEqual(10 * 60_000)
  })

  it('backs off exponentially from 30 s', () => {
    expect(delays).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 960_000])
  })

  it('stops after the last try and ignores nonsense attempt numbers', () => {
    expect(callbackRetryDelay(MAX_CALLBACK_ATTEMPTS)).toBeUndefined()
    expect(callbackRetryDelay(0)).toBeUndefined()
    expect(callbackRetryDelay(1.5)).toBeUndefined()
  })
})

describe('signBody', () => {
  it('is sha256=<hex HMAC-SHA256 of the body>', () => {
    const body = '{"name":"event.operation.state.changed","date":1}'
    const expected = createHmac('sha256', 's3cret').update(body).digest('hex')
    expect(signBody('s3cret', body)).toBe(`sha256=${expected}`)
    expect(signBody('s3cret', body)).toMatch(/^sha256=[0-9a-f]{64}$/)
    expect(signBody('other', body)).not.toBe(signBody('s3cret', body))
  })
})

describe('operationMail', () => {
  it('addresses the caller and names the operation, its type, final counters and dates', () => {
    const mail = operationMail(op, 'caller@example.com')
    expect(mail.to).toBe('caller@example.com')
    expect(mail.subject).toContain(op.uid)
    expect(mail.subject).toContain('SYSTEM_REBOOT')
    expect(mail.text).toContain(`Operation: ${op.uid}`)
    expect(mail.text).toContain('Type: SYSTEM_REBOOT')
    expect(mail.text).toContain('SUCCESS: 2')
    expect(mail.text).toContain('FAILURE: 1')
    expect(mail.text).toContain('Started: 2024-05-01T10:00:00.000Z')
    expect(mail.text).toContain('Ended: 2024-05-01T10:05:30.000Z')
  })

  it('shows a dash for an operation that never started', () => {
    expect(operationMail({ ...op, startDate: null }, 'a@b.c').text).toContain('Started: -')
  })
})
