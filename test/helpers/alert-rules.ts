// What a rule named Hot with the given conditions reads back as when a client sent nothing else (docs/alerts.md#rules).
import type { AlertCondition, AlertRule } from '../../core/domain/alert-rule.js'

export function defaultRule (uid: string, conditions: unknown[], patch: Partial<AlertRule> = {}): AlertRule {
  return {
    id: uid,
    uid,
    targetType: 'SYSTEM',
    name: 'Hot',
    message: null,
    stateful: true,
    active: true,
    emails: [],
    notifMode: null,
    conditions: conditions as AlertCondition[],
    metadata: null,
    readOnly: false,
    actions: [],
    maxOperationsPerHour: 60,
    ...patch
  }
}
