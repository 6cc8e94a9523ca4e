// console/src/pages/alerts/rule-text.ts: a rule's conditions in words on the Alerts page, the body the rule form
// sends, the form field an alert.rule.invalid names, and the PUT that turns a rule on or off.
import { describe, expect, it } from 'vitest'
import { conditionsText, conditionText, ruleBody, ruleFormField, withActive } from '../../../console/src/pages/alerts/rule-text.js'
import type { AlertRule } from '../../../console/src/pages/alerts/types.js'

const data = (name: string): { attributeId: { name: string } } => ({ attributeId: { name } })

describe('an alert rule in words', () => {
  it('writes each operator of the form as its sign, the data id without DATA.', () => {
    expect(conditionText({ operator: 'GT', operands: [data('DATA.engine.temp'), { valueNum: 90 }] })).toBe('engine.temp > 90')
    expect(conditionText({ operator: 'LTE', operands: [data('DATA.battery'), { valueNum: 3.3 }] })).toBe('battery ≤ 3.3')
    expect(conditionText({ operator: 'NOT_EQUALS', operands: [data('system.commStatus'), { valueStr: 'OK' }] })).toBe('system.commStatus ≠ "OK"')
  })

  it('writes the other operators in words, the value first or second as the client sent it', () => {
    expect(conditionText({ operator: 'IN', operands: [data('system.labels'), { valuesStr: ['north', 'south'] }] })).toBe('system.labels is one of north, south')
    expect(conditionText({ operator: 'EQUALS', operands: [{ valueNum: 1 }, data('DATA.door')] })).toBe('door = 1')
    expect(conditionText({ operator: 'GEO_CONTAINS', operands: [data('DATA._LON_LAT'), { valueStr: 'POLYGON((0 0, 1 0, 1 1, 0 0))' }] })).toBe('_LON_LAT is inside a polygon')
    expect(conditionText({ operator: 'NO_COMMUNICATION_FOR', operands: [{ valueNum: 60 }] })).toBe('no communication for 60 min')
  })

  it('joins the conditions with "and", as all must hold', () => {
    expect(conditionsText([
      { operator: 'GT', operands: [data('DATA.temp'), { valueNum: 40 }] },
      { operator: 'EQUALS', operands: [data('DATA.door'), { valueStr: 'open' }] }
    ])).toBe('temp > 40 and door = "open"')
    expect(conditionsText([])).toBe('No condition')
  })
})

describe('the rule form', () => {
  const form = { name: ' Engine too hot ', dataId: ' engine.temp ', operator: 'GT', value: ' 90.5 ', stateful: true, message: '' }

  it('sends one condition on DATA.<data id>, a number as valueNum, a blank message as null', () => {
    expect(ruleBody(form)).toEqual({
      name: 'Engine too hot',
      message: null,
      stateful: true,
      active: true,
      conditions: [{ operator: 'GT', operands: [{ attributeId: { name: 'DATA.engine.temp' } }, { valueNum: 90.5 }] }]
    })
  })

  it('sends a value that is not a number as valueStr, and keeps the message and stateless choice', () => {
    const body = ruleBody({ ...form, operator: 'EQUALS', value: 'true', stateful: false, message: ' Door open ' })
    expect(body.conditions).toEqual([{ operator: 'EQUALS', operands: [{ attributeId: { name: 'DATA.engine.temp' } }, { valueStr: 'true' }] }])
    expect(body.stateful).toBe(false)
    expect(body.message).toBe('Door open')
    expect((ruleBody({ ...form, value: '' }).conditions as Array<{ operands: unknown[] }>)[0]?.operands[1]).toEqual({ valueStr: '' })
  })

  it('finds the form field an alert.rule.invalid names', () => {
    const fields: Array<[string, string | null]> = [
      ['name', 'name'], ['message', 'message'], ['conditions[0].operator', 'operator'],
      ['conditions[0].operands[0].attributeId.name', 'dataId'], ['conditions[0].operands[1].valueStr', 'value'],
      ['conditions[0].operands', 'value'], ['emails[0]', null], ['conditions[1].operator', null]
    ]
    expect(fields.map(([path]) => [path, ruleFormField(path)])).toEqual(fields)
  })
})

describe('turning a rule on or off', () => {
  it('sends the rule whole with only active changed, without its uid', () => {
    const rest = { message: 'm', stateful: false, emails: ['a@b.c'], actions: [{ operation: 'REBOOT' }], maxOperationsPerHour: 5 }
    const conditions = [{ operator: 'GT', operands: [data('DATA.t'), { valueNum: 1 }] }]
    const rule: AlertRule = { ...rest, id: 'r1', uid: 'r1', name: 'Hot', active: true, conditions }
    expect(withActive(rule, false)).toEqual({ ...rest, name: 'Hot', active: false, conditions })
    expect(rule.active).toBe(true)
  })
})
