// The hooks of an alert rule (docs/alerts.md#hooks): where each of its alerts is POSTed. A hook's URL is checked as an
// operation's callback is (core/operations/callback-guard.ts), when it is added rather than at its first delivery.
import { FleetError } from '../../errors.js'
import type { AlertRulesRepository } from '../../ports/alert-rules.js'
import type { CallbackGuard } from '../../operations/callback-guard.js'
import type { Clock } from '../../ports/store.js'
import type { CompanyAccess } from '../access.js'
import { newUid } from '../../security/secrets.js'
import { redactUrl } from '../../domain/operation.js'

export interface AlertHooksServiceDeps {
  rules: AlertRulesRepository
  clock: Clock
  guard: CallbackGuard
  /** The context company's rule, or alert.rule.unknown (AlertRulesService.owned). */
  owned: (access: CompanyAccess, uid: string) => Promise<unknown>
}

/** A hook as answered: the password of its URL masked, as an operation's callback is. */
export interface HookView { uid: string, callback: string }

export function createAlertHooksService ({ rules, clock, guard, owned }: AlertHooksServiceDeps) {
  return {
    /** @throws alert.rule.unknown, callback.invalid, callback.forbidden */
    async add (access: CompanyAccess, ruleUid: string, body: { callback?: unknown }): Promise<HookView> {
      await owned(access, ruleUid)
      const callback = typeof body.callback === 'string' ? body.callback.trim() : ''
      if (callback === '') throw new FleetError('callback.invalid', ['callback'])
      const verdict = await guard.check(callback)
      if (!verdict.ok) throw new FleetError(verdict.code, verdict.params)
      const uid = newUid()
      await rules.insertHook({ uid, ruleUid, callback, createdAt: clock.now() })
      return { uid, callback: redactUrl(callback) }
    },
    /** @throws alert.rule.unknown */
    async list (access: CompanyAccess, ruleUid: string): Promise<HookView[]> {
      await owned(access, ruleUid)
      return (await rules.hooks(ruleUid)).map((h) => ({ uid: h.uid, callback: redactUrl(h.callback) }))
    },
    /** @throws alert.rule.unknown, alert.hook.unknown */
    async remove (access: CompanyAccess, ruleUid: string, uid: string): Promise<void> {
      await owned(access, ruleUid)
      if (!await rules.deleteHook(ruleUid, uid)) throw new FleetError('alert.hook.unknown', [uid])
    }
  }
}

export type AlertHooksService = ReturnType<typeof createAlertHooksService>
