// What a raised alert does (docs/alerts.md; decision 0032, "After the commit"): the job alert.notify, queued once per
// alert after the commit that raised it, sends the rule's e-mails, queues a try of each of its hooks, publishes the
// live stream's `alert` event, starts its actions, and clears the alert's notify_pending last. Each effect is at least
// once: a run cut short runs again, and does again what is not guarded (an e-mail), never a second operation (the
// actions' claims) nor, while it waits, a second hook try (their job ids).
import type { Logger } from '../../logger.js'
import type { Clock, UnitOfWork } from '../../ports/store.js'
import type { JobQueue } from '../../ports/queue.js'
import type { Repositories } from '../../ports/repositories.js'
import type { CallbackSender, Mailer } from '../../ports/notify.js'
import type { EventBus } from '../../ports/events.js'
import type { MetricsRegistry } from '../../metrics.js'
import type { ModuleJobHandlers, ModuleJobs } from '../../operations/jobs.js'
import type { OperationsService } from '../../operations/service.js'
import type { AlertToNotify } from '../../ports/alert-notify.js'
import type { StoredAlertRule } from '../../ports/alert-rules.js'
import { alertMail, alertTriggeredEvent, type AlertNotice } from '../../domain/alert-notice.js'
import { createHookDelivery } from './alert-hook-delivery.js'
import { createAlertActions } from './alert-actions.js'

export interface AlertNotifyDeps {
  repos: Pick<Repositories, 'alertNotify' | 'alertRules' | 'memberships' | 'companies'>
  inTransaction: UnitOfWork
  queue: Pick<JobQueue<ModuleJobs>, 'enqueue'>
  callbacks: CallbackSender
  mailer: Mailer
  operations: Pick<OperationsService, 'kinds' | 'create'>
  clock: Clock
  log: Logger
  /** The live stream's bus; absent: no event. */
  events?: EventBus | undefined
  metrics?: MetricsRegistry | undefined
  /** CALLBACK_RETRY_BASE_MS */
  callbackRetryBaseMs?: number | undefined
}

/** The job id of an alert's notification: queueing it again while it waits (the pending sweep) is a no-op. */
export const notifyJobId = (alertUid: string): string => `alert-notify:${alertUid}`

export function createAlertNotify (deps: AlertNotifyDeps) {
  const { repos, queue, mailer, events, log } = deps
  const hooks = createHookDelivery(deps)
  const actions = createAlertActions(deps)

  async function sendMails (notice: AlertNotice, emails: readonly string[]): Promise<void> {
    for (const to of emails) await mailer.send(alertMail(notice, to))
  }

  function publish (alert: AlertToNotify, stored: StoredAlertRule): void {
    if (events?.listening() !== true) return
    events.publish([{ kind: 'alert', company: alert.companyUid, system: alert.systemUid, uid: alert.uid, rule: stored.rule.uid, ruleName: stored.rule.name, date: alert.date }])
  }

  /**
   * The alert.notify job. Nothing when the alert is gone or already notified. The e-mails go first: a failure to send
   * one fails the run before anything else was done, and its retry sends them again.
   */
  async function notify (alertUid: string): Promise<void> {
    const alert = await repos.alertNotify.find(alertUid)
    if (alert === undefined || !alert.pending) return
    const stored = await repos.alertRules.get(alert.companyUid, alert.ruleUid)
    if (stored === undefined) return
    const notice: AlertNotice = { ...alert, ruleName: stored.rule.name, message: stored.rule.message }
    await sendMails(notice, stored.rule.emails)
    const event = alertTriggeredEvent(notice)
    for (const hook of await repos.alertRules.hooks(stored.rule.uid)) await hooks.queue({ alertUid, hookUid: hook.uid, url: hook.callback, event })
    publish(alert, stored)
    await actions.start(stored, { alertUid, systemUid: alert.systemUid })
    if (!await repos.alertNotify.clearPending(alertUid)) log.info({ alert: alertUid }, 'alert notified twice')
  }

  const handlers: ModuleJobHandlers = {
    'alert.notify': async (p) => { await notify(p.alertUid) },
    'alert.hook': async (p) => { await hooks.deliver(p) }
  }

  return {
    /** Queues the notification of alerts just raised and committed (called after the commit: decision 0032). */
    async onAlerts (alertUids: readonly string[]): Promise<void> {
      for (const uid of alertUids) await queue.enqueue('alert.notify', { alertUid: uid }, { jobId: notifyJobId(uid) })
    },
    notify,
    /** The workers' handlers of the alert jobs (engine.work's `modules`). */
    handlers
  }
}

export type AlertNotify = ReturnType<typeof createAlertNotify>
