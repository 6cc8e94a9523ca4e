// Alert rules (docs/alerts.md): the AirVantage v2 rule and the v1 hooks. The bodies are checked by the service
// (core/domain/alert-rule-validate.ts) so that every refusal is alert.rule.invalid naming its field; the schemas here
// document them and shape the answers.
import { Type } from 'typebox'
import { UidOf } from './common.schema.js'

const Str = Type.String()
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T, description: string) => Type.Union([t, Type.Null()], { description })
const Loose = Type.Object({}, { additionalProperties: true })

const Operand = Type.Object({
  attributeId: Type.Optional(Type.Object({
    name: Type.String({ description: '`DATA.<data id>`, `system.id`, `system.name`, `system.commStatus`, `system.lifeCycleState`, `system.labels`, `system.comm.protocol` or `system.lastCommDate`' }),
    targetId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    filter: Type.Optional(Type.Union([Type.String(), Type.Null()]))
  })),
  valueStr: Type.Optional(Type.String()),
  valueNum: Type.Optional(Type.Number()),
  valuesStr: Type.Optional(Type.Array(Str))
}, { description: 'One of: an attributeId, a valueStr, a valueNum, a valuesStr' })

const Condition = Type.Object({
  operator: Type.String({ description: 'EQUALS, NOT_EQUALS, GT, GTE, LT, LTE, IN, CONTAINS, GEO_CONTAINS or NO_COMMUNICATION_FOR' }),
  operands: Type.Array(Operand)
})

const Action = Type.Object({
  operation: Type.String({ description: 'REBOOT, RETRIEVE_DATA, APPLY_SETTINGS or INSTALL_APPLICATION' }),
  parameters: Type.Optional(Loose),
  cooldownMinutes: Type.Optional(Type.Integer({ minimum: 0, description: 'At most one operation per system within this many minutes' }))
})

const example = {
  id: '8f2c1d0e6b5a4c3d9e7f1a2b3c4d5e6f',
  uid: '8f2c1d0e6b5a4c3d9e7f1a2b3c4d5e6f',
  targetType: 'SYSTEM',
  name: 'Engine too hot',
  message: 'The engine is over 90 °C',
  stateful: true,
  active: true,
  emails: ['ops@example.com'],
  notifMode: null,
  conditions: [{ operator: 'GT', operands: [{ attributeId: { name: 'DATA.engine.temp' } }, { valueNum: 90 }] }],
  metadata: null,
  readOnly: false,
  actions: [{ operation: 'RETRIEVE_DATA', parameters: { data: ['engine.temp'] }, cooldownMinutes: 30 }],
  maxOperationsPerHour: 60
}

export const AlertRuleView = Type.Object({
  id: UidOf('uid of the rule'),
  uid: UidOf('uid of the rule (the same as id)'),
  targetType: Type.Literal('SYSTEM'),
  name: Str,
  message: Nullable(Type.String(), 'The alert\'s message (also the e-mails\')'),
  stateful: Type.Boolean({ description: 'One alert while the conditions hold, closed when they stop (true), or one alert each time they become true' }),
  active: Type.Boolean({ description: 'Whether the rule is evaluated' }),
  emails: Type.Array(Str, { description: 'Addresses e-mailed on each alert' }),
  notifMode: Nullable(Type.String(), 'Kept as given'),
  conditions: Type.Array(Condition, { description: 'All must hold (AND)' }),
  metadata: Type.Union([Loose, Type.Null()], { description: 'Kept as given' }),
  readOnly: Type.Boolean(),
  actions: Type.Array(Action, { description: 'Operations started on the alert\'s system' }),
  maxOperationsPerHour: Type.Integer({ description: 'At most this many operations started by the rule in an hour, all systems together' })
}, { description: 'An alert rule (AirVantage v2)', examples: [example] })

const field = (description: string) => Type.Optional(Type.Unknown({ description }))

export const AlertRuleBody = Type.Object({
  name: field('Required'),
  targetType: field('SYSTEM (the default)'),
  message: field('A string or null'),
  stateful: field('Default true'),
  active: field('Default true'),
  emails: field('E-mail addresses, default []'),
  notifMode: field('Kept as given'),
  conditions: field('At least one condition: {operator, operands}'),
  metadata: field('An object, kept as given; default null'),
  readOnly: field('Default false'),
  actions: field('{operation, parameters, cooldownMinutes}; default []'),
  maxOperationsPerHour: field('1 to 10,000, default 60')
}, { description: 'A rule; null stands for a field left out, id and unknown fields are ignored', examples: [Object.fromEntries(Object.entries(example).filter(([k]) => k !== 'id' && k !== 'uid'))] })

export const AlertRuleParams = Type.Object({ id: UidOf('uid of the rule') })
export const HookParams = Type.Object({ id: UidOf('uid of the rule'), uid: UidOf('uid of the hook') })
export const HookBody = Type.Object({ callback: Type.String({ description: 'http(s) URL every alert of the rule is POSTed to' }) })
export const HookView = Type.Object({
  uid: UidOf('uid of the hook'),
  callback: Type.String({ description: 'Its URL (its password masked)' })
}, { examples: [{ uid: '0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f', callback: 'https://hooks.example.com/alerts' }] })
