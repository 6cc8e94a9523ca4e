// What every bulk dialog shares: the systems it acts on, how it names them, and how it runs its operation (with the
// rollout options of a device operation, docs/operations.md#safe-rollouts) and goes to the operation's page.
import type { PageContext } from '../../page.js'
import type { BulkRequest, Target } from './bulk.js'
import type { RolloutFieldset } from './rollout-fieldset.js'

export type Ctx = Pick<PageContext, 'api' | 'navigate'>

/** What the actions act on: the target and how many systems it names (for the dialogs' words). */
export interface Chosen { target: Target, count: number }

export const plural = (n: number): string => `${n.toLocaleString()} system${n === 1 ? '' : 's'}`
/** The dialogs name the systems: "3 systems", or "all 1,204 systems matching the filters". */
export const named = (c: Chosen): string => 'criteria' in c.target ? `all ${plural(c.count)} matching the filters` : plural(c.count)

/** Creates the operation, its rollout fields added when the dialog has them, and opens its page. */
export async function run (ctx: Ctx, req: BulkRequest, rollout?: RolloutFieldset): Promise<boolean> {
  let body = req.body
  if (rollout !== undefined) {
    const { fields, error } = rollout.read()
    if (error !== null) throw new Error(error)
    body = { ...body, ...fields }
  }
  const answer = await ctx.api.post<{ operation: string }>(req.path, body)
  ctx.navigate(`/operations/${encodeURIComponent(answer.operation)}`)
  return true
}
