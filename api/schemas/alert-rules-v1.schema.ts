// AirVantage's v1 alert rules (docs/alerts.md#v1-rules): the shape airvantage.js sends and reads, mapped onto the v2
// rules. Bodies are checked by the service (alert.rule.invalid naming the field); the schemas document and shape.
import { Type } from 'typebox'
import { CompanyParam, listParam, Page, PageQuery, UidOf } from './common.schema.js'

const Value = Type.Union([Type.String(), Type.Number(), Type.Array(Type.String()), Type.Null()], {
  description: 'A string, a number, or an array of strings (IN)'
})

const ConditionV1 = Type.Object({
  eventProperty: Type.Union([Type.String(), Type.Null()], { description: 'communication.protocol, data (with eventPropertyKey), or a v2 attribute name (system.name...); null for NO_COMMUNICATION_FOR' }),
  eventPropertyKey: Type.Union([Type.String(), Type.Null()], { description: 'The data id, with eventProperty data' }),
  operator: Type.String({ description: 'An operator of the v2 rules: EQUALS, NOT_EQUALS, GT, GTE, LT, LTE, IN, CONTAINS, GEO_CONTAINS, NO_COMMUNICATION_FOR' }),
  value: Value
})

const example = {
  uid: '8f2c1d0e6b5a4c3d9e7f1a2b3c4d5e6f',
  name: 'MSCI traffic',
  description: 'A gateway speaks MSCI',
  active: true,
  stateful: true,
  conditions: [{ eventProperty: 'communication.protocol', eventPropertyKey: null, operator: 'EQUALS', value: 'MSCI' }],
  recipients: { emails: ['ops@example.com'] }
}

export const AlertRuleV1View = Type.Object({
  uid: UidOf('uid of the rule (the same as in /api/v2/alertrules)'),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()], { description: 'The v2 rule\'s message' }),
  active: Type.Boolean(),
  stateful: Type.Boolean(),
  conditions: Type.Array(ConditionV1, { description: 'All must hold (AND)' }),
  recipients: Type.Object({ emails: Type.Array(Type.String(), { description: 'The v2 rule\'s emails' }) })
}, { description: 'An alert rule in AirVantage\'s v1 shape', examples: [example] })

const field = (description: string) => Type.Optional(Type.Unknown({ description }))

export const AlertRuleV1Body = Type.Object({
  name: field('Required on creation'),
  description: field('The message'),
  active: field('Default true'),
  stateful: field('Default true'),
  eventType: field('Accepted and not kept: the conditions say what is watched'),
  conditions: field('At least one on creation: {eventProperty, eventPropertyKey, operator, value}'),
  recipients: field('{emails: [...]}')
}, {
  description: 'A v1 rule; on an edit, only the fields given change. Unknown fields are ignored',
  examples: [Object.fromEntries(Object.entries(example).filter(([k]) => k !== 'uid'))]
})

export const AlertRulesV1Query = Type.Object({
  company: Type.Optional(CompanyParam),
  offset: PageQuery.offset,
  size: PageQuery.size,
  fields: Type.Optional(listParam('Attributes to return: uid, name, description, active, stateful, conditions, recipients'))
})

export const AlertRuleV1Page = Page(Type.Partial(AlertRuleV1View))

/** A 204 answer: no body at all. */
export const NoContent = Type.Unsafe<undefined>({ type: 'null', description: 'No content' })
