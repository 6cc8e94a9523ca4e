// One evaluation of alert rules in the caller's transaction (decision 0032): the candidates' facts and stored answers
// read together, the answers that changed written as transitions. Shared by the ingest commit and the periodic check.
import type { AlertEvaluationRepository, AlertCandidate, AlertTransitions } from '../../ports/alert-evaluation.js'
import { newUid } from '../../security/secrets.js'
import { settledInOrder } from '../../settled.js'
import { changedAnswers, dataIdsWanted, fieldlessSystems, type SystemTraffic } from './alert-evaluation.js'

const NOTHING: AlertTransitions = { raised: [], closed: [] }

/** What the ingest's batch tells: its traffic, and the company its insert found for each system. */
export interface BatchFacts { traffic: ReadonlyMap<string, SystemTraffic>, known: ReadonlyMap<string, string> }

/** Evaluates the candidates at `now` and writes what changed; nothing is read when there is no candidate. */
export async function evaluateCandidates (repo: AlertEvaluationRepository, candidates: readonly AlertCandidate[], now: number,
  batch?: BatchFacts): Promise<AlertTransitions> {
  if (candidates.length === 0) return NOTHING
  const pairs = candidates.flatMap((c) => c.systemUids.map((systemUid) => ({ ruleUid: c.ruleUid, systemUid })))
  const fieldless = fieldlessSystems(candidates, batch?.known)
  const [facts, states] = await settledInOrder([repo.facts(dataIdsWanted(candidates), fieldless), repo.states(pairs)])
  const traffic = batch?.traffic
  const answers = changedAnswers({ candidates, facts, states, now, newUid, ...(traffic === undefined ? {} : { traffic }) })
  return answers.length === 0 ? NOTHING : await repo.transitions(answers, now)
}
