// A rule as clients send it (core/domain/alert-rule-validate.ts, docs/alerts.md#rules): every refusal is
// alert.rule.invalid naming the field; the defaults; the nulls and extra fields real AirVantage clients send.
import { describe, expect, it } from 'vitest'
import { validAlertRule } from '../../../core/domain/alert-rule-validate.js'
import { defaultRule } from '../../helpers/alert-rules.js'

const attr = (name: string) => ({ attributeId: { name } })
const gt = { operator: 'GT', operands: [attr('DATA.temp'), { valueNum: 40 }] }
const body = (patch: Record<string, unknown> = {}): Record<string, unknown> => ({ name: 'Hot', conditions: [gt], ...patch })
const square = 'POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))'
const cond = (operator: string, ...operands: unknown[]) => ({ conditions: [{ operator, operands }] })

/** [what, body patch, field named] */
const REFUSED: Array<[string, Record<string, unknown>, string]> = [
  ['no name', { name: undefined }, 'name'],
  ['a blank name', { name: '  ' }, 'name'],
  ['a name that is not a string', { name: 5 }, 'name'],
  ['a target other than SYSTEM', { targetType: 'GATEWAY' }, 'targetType'],
  ['no conditions', { conditions: [] }, 'conditions'],
  ['conditions null', { conditions: null }, 'conditions'],
  ['a condition that is not an object', { conditions: [gt, 3] }, 'conditions[1]'],
  ['an unknown operator', cond('BETWEEN', attr('DATA.t'), { valueNum: 1 }), 'conditions[0].operator'],
  ['operands not an array', { conditions: [{ operator: 'GT', operands: null }] }, 'conditions[0].operands'],
  ['a binary operator with one operand', cond('EQUALS', attr('DATA.t')), 'conditions[0].operands'],
  ['a binary operator with two values', cond('LT', { valueNum: 1 }, { valueNum: 2 }), 'conditions[0].operands'],
  ['a binary operator with valuesStr', cond('GTE', attr('DATA.t'), { valuesStr: ['a'] }), 'conditions[0].operands'],
  ['IN with a valueStr', cond('IN', attr('system.commStatus'), { valueStr: 'OK' }), 'conditions[0].operands'],
  ['IN with an empty valuesStr', cond('IN', attr('system.commStatus'), { valuesStr: [] }), 'conditions[0].operands[1].valuesStr'],
  ['GEO_CONTAINS with a valueNum', cond('GEO_CONTAINS', attr('DATA._LON_LAT'), { valueNum: 1 }), 'conditions[0].operands'],
  ['GEO_CONTAINS with an open ring', cond('GEO_CONTAINS', attr('DATA._LON_LAT'), { valueStr: 'POLYGON((0 0, 1 0, 1 1, 0 1))' }), 'conditions[0].operands[1].valueStr'],
  ['GEO_CONTAINS with a point', cond('GEO_CONTAINS', attr('DATA._LON_LAT'), { valueStr: 'POINT(1 2)' }), 'conditions[0].operands[1].valueStr'],
  ['NO_COMMUNICATION_FOR of 0 minutes', cond('NO_COMMUNICATION_FOR', { valueNum: 0 }), 'conditions[0].operands[0].valueNum'],
  ['NO_COMMUNICATION_FOR with a valueStr', cond('NO_COMMUNICATION_FOR', { valueStr: '30' }), 'conditions[0].operands'],
  ['an unknown attribute', cond('EQUALS', attr('system.owner'), { valueStr: 'x' }), 'conditions[0].operands[0].attributeId.name'],
  ['a DATA attribute without an id', cond('EQUALS', attr('DATA.'), { valueStr: 'x' }), 'conditions[0].operands[0].attributeId.name'],
  ['an operand of two kinds', cond('EQUALS', attr('DATA.t'), { valueStr: 'x', valueNum: 1 }), 'conditions[0].operands[1]'],
  ['an operand of no kind', cond('EQUALS', attr('DATA.t'), { valueStr: null }), 'conditions[0].operands[1]'],
  ['a valueNum that is a string', cond('EQUALS', attr('DATA.t'), { valueNum: '4' }), 'conditions[0].operands[1].valueNum'],
  ['a bad e-mail', { emails: ['ops@example.com', 'nobody'] }, 'emails[1]'],
  ['e-mails not an array', { emails: 'ops@example.com' }, 'emails'],
  ['an unknown action', { actions: [{ operation: 'RESET' }] }, 'actions[0].operation'],
  ['a negative cooldown', { actions: [{ operation: 'REBOOT', cooldownMinutes: -1 }] }, 'actions[0].cooldownMinutes'],
  ['a fractional cooldown', { actions: [{ operation: 'REBOOT', cooldownMinutes: 1.5 }] }, 'actions[0].cooldownMinutes'],
  ['parameters not an object', { actions: [{ operation: 'REBOOT' }, { operation: 'APPLY_SETTINGS', parameters: [1] }] }, 'actions[1].parameters'],
  ['maxOperationsPerHour 0', { maxOperationsPerHour: 0 }, 'maxOperationsPerHour'],
  ['maxOperationsPerHour 10,001', { maxOperationsPerHour: 10_001 }, 'maxOperationsPerHour'],
  ['stateful not a boolean', { stateful: 'yes' }, 'stateful'],
  ['metadata not an object', { metadata: 'x' }, 'metadata']
]

describe('validAlertRule', () => {
  it.each(REFUSED)('refuses %s, naming %s', (_what, patch, field) => {
    expect(() => validAlertRule(body(patch), 'r1')).toThrow(expect.objectContaining({ code: 'alert.rule.invalid', params: [field, expect.any(String)] }))
  })

  it('gives the defaults and ignores a body\'s id', () => {
    expect(validAlertRule(body({ id: 'theirs', uid: 'theirs' }), 'r1')).toEqual(defaultRule('r1', [gt]))
  })

  it('takes the nulls and the unused operand kinds AirVantage clients send', () => {
    const nulls = { targetType: null, message: null, stateful: null, active: null, emails: null, notifMode: null, metadata: null, readOnly: null, actions: null, maxOperationsPerHour: null, creationDate: 1 }
    const operand = (o: Record<string, unknown>) => ({ attributeId: null, valueStr: null, valueNum: null, valuesStr: null, ...o })
    const r = validAlertRule(body({ ...nulls, conditions: [{ operator: 'EQUALS', operands: [operand({ attributeId: { name: 'system.name', targetId: null, filter: null } }), operand({ valueStr: 'x' })] }] }), 'r1')
    expect(r).toMatchObject({ stateful: true, active: true, emails: [], actions: [], metadata: null, maxOperationsPerHour: 60 })
    expect(r.conditions).toEqual([{ operator: 'EQUALS', operands: [{ attributeId: { name: 'system.name' } }, { valueStr: 'x' }] }])
  })

  it('keeps every operator with its operands, actions and metadata as given', () => {
    const conditions = [
      { operator: 'IN', operands: [attr('system.lifeCycleState'), { valuesStr: ['READY', 'DEPLOYED'] }] },
      { operator: 'GEO_CONTAINS', operands: [attr('DATA._LON_LAT'), { valueStr: square }] },
      { operator: 'NO_COMMUNICATION_FOR', operands: [{ valueNum: 30 }] },
      { operator: 'CONTAINS', operands: [attr('system.labels'), { valueStr: 'north' }] },
      { operator: 'NOT_EQUALS', operands: [{ valueStr: 'MQTT' }, attr('system.comm.protocol')] }
    ]
    const actions = [{ operation: 'REBOOT', cooldownMinutes: 0 }, { operation: 'INSTALL_APPLICATION', parameters: { application: 'a1' }, cooldownMinutes: 60 }]
    const r = validAlertRule(body({ conditions, actions, metadata: { k: [1] }, stateful: false, emails: ['a@b.co'], maxOperationsPerHour: 10_000 }), 'r1')
    expect(r).toMatchObject({ conditions, actions, metadata: { k: [1] }, stateful: false, emails: ['a@b.co'], maxOperationsPerHour: 10_000 })
  })
})
