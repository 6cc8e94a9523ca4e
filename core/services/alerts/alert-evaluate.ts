// One evaluation of alert rules in the caller's transaction (decision 0032): the candidates' facts and stored answers
// read together, the answers that changed written as transitions. Shared by the ingest commit and the periodic check.
import type { AlertEvaluationRepository, AlertCandidate, AlertTransitions, CarriedPoint, SystemFacts } from '../../ports/alert-evaluation.js'
import { newUid } from '../../security/secrets.js'
import { settledInOrder } from '../../settled.js'
import { changedAnswers, dataIdsWanted, fieldlessSystems, type SystemTraffic } from './alert-evaluation.js'

const NOTHING: AlertTransitions = { raised: [], closed: [] }

/**
 * What the ingest's batch tells: its traffic, the company its insert found for each system, and its newest point of
 * each (system, data id) it carries (decision 0035).
 */
export interface BatchFacts {
  traffic: ReadonlyMap<string, SystemTraffic>
  known: ReadonlyMap<string, string>
  carried?: ReadonlyMap<string, ReadonlyMap<string, CarriedPoint>>
}

/** The reads of an evaluation, sent: what the candidates' systems are and the answers stored for them. */
export interface EvaluationReads {
  candidates: readonly AlertCandidate[]
  batch: BatchFacts | undefined
  read: Promise<readonly [Map<string, SystemFacts>, Map<string, boolean>]>
}

/**
 * Sends the reads the candidates are evaluated on (none without candidates), without waiting for them: the ingest
 * sends them with its batch's inserts (message-write.ts).
 */
export function readForEvaluation (repo: AlertEvaluationRepository, candidates: readonly AlertCandidate[], batch?: BatchFacts): EvaluationReads {
  if (candidates.length === 0) return { candidates, batch, read: Promise.resolve([new Map(), new Map()] as const) }
  const pairs = candidates.flatMap((c) => c.systemUids.map((systemUid) => ({ ruleUid: c.ruleUid, systemUid })))
  const fieldless = fieldlessSystems(candidates, batch?.known)
  return { candidates, batch, read: settledInOrder([repo.facts(dataIdsWanted(candidates), fieldless, batch?.carried), repo.states(pairs)]) }
}

/** Evaluates at `now` on the reads and writes what changed. */
export async function evaluateOnReads (repo: AlertEvaluationRepository, reads: EvaluationReads, now: number): Promise<AlertTransitions> {
  const [facts, states] = await reads.read
  if (reads.candidates.length === 0) return NOTHING
  const traffic = reads.batch?.traffic
  const answers = changedAnswers({ candidates: reads.candidates, facts, states, now, newUid, ...(traffic === undefined ? {} : { traffic }) })
  return answers.length === 0 ? NOTHING : await repo.transitions(answers, now)
}

/** Evaluates the candidates at `now` and writes what changed; nothing is read when there is no candidate. */
export async function evaluateCandidates (repo: AlertEvaluationRepository, candidates: readonly AlertCandidate[], now: number,
  batch?: BatchFacts): Promise<AlertTransitions> {
  return await evaluateOnReads(repo, readForEvaluation(repo, candidates, batch), now)
}
