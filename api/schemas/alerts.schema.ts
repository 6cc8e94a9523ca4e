// Alerts and alert states (docs/alerts.md#alerts): their query parameters and the AirVantage v2 shapes answered.
import { Type } from 'typebox'
import { CompanyParam, listParam, PageQuery, UidOf } from './common.schema.js'
import { EpochTime } from './numbers.schema.js'

const Ref = (what: string) => Type.Object({ uid: UidOf(`uid of the ${what}`), name: Type.String({ description: `name of the ${what}` }) })

const Attribute = Type.Object({
  id: Type.Object({ name: Type.String({ description: 'The attribute: DATA.<data id> or a system field' }) }),
  value: Type.Union([Type.Object({ valueStr: Type.String() }), Type.Object({ valueNum: Type.Number() })])
}, { description: 'A value that made the conditions true' })

const alertExample = {
  uid: '3b9e1c0d2a4f4e6b8c7d5a1f0e2d4c6b',
  rule: { uid: '8f2c1d0e6b5a4c3d9e7f1a2b3c4d5e6f', name: 'Engine too hot', message: 'The engine is over 90 °C' },
  target: { uid: '5d0a9c7e4b6f4c2f8a1e3b7d9c0f1a2b', name: 'Pump 7' },
  date: 1767225600000,
  closedDate: null,
  state: 'OPEN',
  acknowledged: true,
  acknowledgedBy: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
  attributes: [{ id: { name: 'DATA.engine.temp' }, value: { valueNum: 93.5 } }]
}

export const AlertView = Type.Object({
  uid: UidOf('uid of the alert'),
  rule: Type.Object({
    uid: UidOf('uid of the rule'),
    name: Type.String({ description: 'name of the rule' }),
    message: Type.Union([Type.String(), Type.Null()], { description: 'The rule\'s message' })
  }),
  target: Ref('system'),
  date: Type.Integer({ description: 'When the conditions became true (epoch ms)' }),
  closedDate: Type.Union([Type.Integer(), Type.Null()], { description: 'When a stateful rule\'s conditions stopped holding; a stateless rule\'s alert is closed when raised' }),
  state: Type.Union([Type.Literal('OPEN'), Type.Literal('CLOSED')]),
  acknowledged: Type.Boolean(),
  acknowledgedBy: Type.Union([Type.String(), Type.Null()], { description: 'Who acknowledged it first: a user\'s uid, or an API client\'s id when it acts without a user' }),
  attributes: Type.Array(Attribute)
}, { description: 'An alert (AirVantage v2)', examples: [alertExample] })

export const AlertStateView = Type.Object({
  rule: Ref('rule'),
  target: Ref('system'),
  state: Type.Boolean({ description: 'Whether the rule\'s conditions hold for the system' }),
  date: Type.Integer({ description: 'When the state last changed (epoch ms)' })
}, {
  description: 'A rule\'s state for one system',
  examples: [{ rule: { uid: alertExample.rule.uid, name: 'Engine too hot' }, target: alertExample.target, state: true, date: 1767225600000 }]
})

const paging = { offset: PageQuery.offset, size: PageQuery.size }

export const AlertsQuery = Type.Object({
  company: Type.Optional(CompanyParam),
  alertId: Type.Optional(listParam('Only these alerts (uids)')),
  ruleId: Type.Optional(listParam('Only the alerts of these rules (uids)')),
  targetId: Type.Optional(listParam('Only the alerts of these systems (uids)')),
  state: Type.Optional(Type.Enum(['OPEN', 'CLOSED'], { description: 'OPEN or CLOSED' })),
  acknowledged: Type.Optional(Type.Boolean({ description: 'true: only acknowledged alerts; false: only the others' })),
  dateAfter: Type.Optional(EpochTime({ description: 'Only alerts raised strictly after this time (epoch ms)' })),
  dateBefore: Type.Optional(EpochTime({ description: 'Only alerts raised strictly before this time (epoch ms)' })),
  ...paging
})

export const AlertStatesQuery = Type.Object({
  company: Type.Optional(CompanyParam),
  ruleId: Type.Optional(listParam('Only the states of these rules (uids)')),
  targetId: Type.Optional(listParam('Only the states of these systems (uids)')),
  ...paging
})

export const AlertParams = Type.Object({ uid: UidOf('uid of the alert') })
