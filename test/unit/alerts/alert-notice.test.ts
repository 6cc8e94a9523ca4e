// What an alert tells the outside (core/domain/alert-notice.ts): the hook's body in AirVantage's shape, the e-mail,
// the action's request on the alert's system alone, and the instants its limits count from.
import { describe, expect, it } from 'vitest'
import { actionBody, actionLimits, alertMail, alertTriggeredEvent, HOUR_MS, type AlertNotice } from '../../../core/domain/alert-notice.js'

const notice: AlertNotice = {
  uid: 'a1',
  date: Date.UTC(2026, 0, 2, 3, 4, 5),
  ruleUid: 'r1',
  ruleName: 'Engine too hot',
  message: 'The engine is over 90 °C',
  systemUid: 's1',
  systemName: 'Pump 7',
  attributes: [{ id: { name: 'DATA.engine.temp' }, value: { valueNum: 93.5 } }, { id: { name: 'system.commStatus' }, value: { valueStr: 'OK' } }]
}

describe('the hook body', () => {
  it('is event.alert.rule.triggered with the alert, rule and target uids under dotted keys, and the alert date', () => {
    expect(alertTriggeredEvent(notice)).toEqual({
      name: 'event.alert.rule.triggered',
      date: notice.date,
      content: { 'alert.uid': 'a1', 'rule.uid': 'r1', 'target.uid': 's1' }
    })
  })
})

describe('the e-mail', () => {
  it('names the rule and the system, carries the message and each value that raised the alert', () => {
    const m = alertMail(notice, 'ops@example.com')
    expect(m.to).toBe('ops@example.com')
    expect(m.subject).toBe('Alert: Engine too hot on Pump 7')
    expect(m.text.split('\n')[0]).toBe('The engine is over 90 °C')
    const lines = m.text.split('\n')
    expect(lines).toEqual(expect.arrayContaining(['System: Pump 7 (s1)', 'Rule: Engine too hot (r1)', 'Date: 2026-01-02T03:04:05.000Z',
      'Values:', '  DATA.engine.temp: 93.5', '  system.commStatus: OK']))
  })

  it('says which rule raised it when the rule has no message, and lists no values when there are none', () => {
    const m = alertMail({ ...notice, message: null, attributes: [] }, 'x@example.com')
    expect(m.text.split('\n')[0]).toBe('The rule "Engine too hot" raised an alert.')
    expect(m.text).not.toContain('Values:')
  })
})

describe('an action', () => {
  it('requests its operation on the alert\'s system alone, whatever systems its parameters name', () => {
    const body = actionBody({ operation: 'RETRIEVE_DATA', parameters: { data: ['t'], systems: { label: 'all' } } }, 's1')
    expect(body).toEqual({ data: ['t'], systems: { uids: ['s1'] } })
    expect(actionBody({ operation: 'REBOOT' }, 's2')).toEqual({ systems: { uids: ['s2'] } })
  })

  it('counts its cooldown back from now in minutes, and the rule\'s budget over the last hour', () => {
    const now = 10 * HOUR_MS
    expect(actionLimits({ operation: 'REBOOT', cooldownMinutes: 30 }, 5, now)).toEqual({ cooldownSince: now - 30 * 60_000, hourSince: now - HOUR_MS, maxPerHour: 5 })
    // No cooldown: only a start later than now would stop it.
    expect(actionLimits({ operation: 'REBOOT' }, 60, now).cooldownSince).toBe(now)
    expect(actionLimits({ operation: 'REBOOT', cooldownMinutes: 0 }, 60, now).cooldownSince).toBe(now)
  })
})
