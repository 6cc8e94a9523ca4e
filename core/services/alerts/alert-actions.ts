// An alert's actions (docs/alerts.md#actions): each starts its operation on the alert's system, as POST of that bulk
// operation with the system alone selected would, under the rule owner's rights. The cooldown per system and action and
// the rule's maxOperationsPerHour are decided in the store (AlertNotifyRepository.claimAction), so that they hold
// across processes and restarts; an action that does not start is logged and counted, never retried.
import { Value } from 'typebox/value'
import { isFleetError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import { noMetrics, type MetricsRegistry } from '../../metrics.js'
import type { Clock, UnitOfWork } from '../../ports/store.js'
import type { Repositories } from '../../ports/repositories.js'
import type { StoredAlertRule } from '../../ports/alert-rules.js'
import type { AlertAction } from '../../domain/alert-rule.js'
import { ACTION_OPERATIONS, actionBody, actionLimits } from '../../domain/alert-notice.js'
import { OPERATION_RIGHTS } from '../../operations/rights.js'
import type { OperationsService } from '../../operations/service.js'
import type { OperationKind } from '../../operations/kind.js'
import { ownerCaller } from './rule-owner.js'

export interface AlertActionsDeps {
  repos: Pick<Repositories, 'memberships' | 'companies' | 'alertNotify'>
  inTransaction: UnitOfWork
  operations: Pick<OperationsService, 'kinds' | 'create'>
  clock: Clock
  log: Logger
  metrics?: MetricsRegistry | undefined
}

/** What became of one action: started, or why not (the label of fleet_alert_actions_total). */
export type ActionOutcome = 'started' | 'cooldown' | 'limit' | 'done' | 'no_owner' | 'no_rights' | 'refused'

/** The alert an action starts for: its uid and system. */
export interface ActionTarget { alertUid: string, systemUid: string }

export function createAlertActions ({ repos, inTransaction, operations, clock, log, metrics = noMetrics }: AlertActionsDeps) {
  const outcomes = metrics.counter<'outcome'>({
    name: 'fleet_alert_actions_total',
    help: 'Actions of raised alerts, by outcome: started, or not (cooldown, limit, done, no_owner, no_rights, refused)',
    labels: ['outcome']
  })

  /**
   * The action's operation kind and request, checked as the API checks that operation's body (its defaults filled in).
   * @returns the fault instead when it does not pass
   */
  function request (action: AlertAction, systemUid: string): { kind: OperationKind, body: Record<string, unknown> } | string {
    const type = ACTION_OPERATIONS[action.operation]
    const kind = operations.kinds.find((k) => k.type === type)
    if (kind === undefined) return `no operation ${type}`
    const body = Value.Default(kind.route.body, actionBody(action, systemUid)) as Record<string, unknown>
    const first = Value.Check(kind.route.body, body) ? undefined : [...Value.Errors(kind.route.body, body)][0]
    return first === undefined ? { kind, body } : `parameters${first.instancePath.replaceAll('/', '.')}: ${first.message}`
  }

  async function startOne (stored: StoredAlertRule, action: AlertAction, index: number, target: ActionTarget): Promise<ActionOutcome> {
    const at = { alert: target.alertUid, rule: stored.rule.uid, action: index }
    const caller = await ownerCaller(repos, stored.companyUid, stored.ownerUid, OPERATION_RIGHTS[ACTION_OPERATIONS[action.operation]])
    if (typeof caller === 'string') return caller
    const req = request(action, target.systemUid)
    if (typeof req === 'string') {
      log.warn({ ...at, fault: req }, 'alert action refused')
      return 'refused'
    }
    const claim = { alertUid: target.alertUid, ruleUid: stored.rule.uid, systemUid: target.systemUid, index, at: clock.now() }
    const limits = actionLimits(action, stored.rule.maxOperationsPerHour, claim.at)
    const verdict = await inTransaction(async (tx) => await tx.alertNotify.claimAction(claim, limits))
    if (verdict !== 'claimed') return verdict
    let operation: string
    try {
      ({ operation } = await operations.create(req.kind, caller.access, caller.actor, req.body))
    } catch (err) {
      // Not started: the claim is given back, so that it counts against no limit (a store fault is retried by the job).
      await repos.alertNotify.release(target.alertUid, index)
      if (!isFleetError(err)) throw err
      // A business refusal (the system lacks the data ids, has no REBOOT action...) is final.
      log.warn({ ...at, code: err.code, params: err.params }, 'alert action refused')
      return 'refused'
    }
    await repos.alertNotify.startedOperation(target.alertUid, index, operation)
    return 'started'
  }

  return {
    /** Starts each of the rule's actions on the alert's system, as its limits and its owner's rights allow. */
    async start (stored: StoredAlertRule, target: ActionTarget): Promise<ActionOutcome[]> {
      const out: ActionOutcome[] = []
      for (const [index, action] of stored.rule.actions.entries()) {
        const outcome = await startOne(stored, action, index, target)
        outcomes.inc({ outcome })
        if (outcome !== 'started' && outcome !== 'done') log.info({ alert: target.alertUid, rule: stored.rule.uid, action: index, outcome }, 'alert action not started')
        out.push(outcome)
      }
      return out
    }
  }
}

export type AlertActions = ReturnType<typeof createAlertActions>
