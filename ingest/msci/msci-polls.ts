// The poll state of AirLink gateways (docs/protocols/msci.md): which gateways are due,
// claimed so that each is polled once at a time across every process, and what each poll ended with. What a claimed
// poll needs besides the system's communication.msci comes from its applications: the MSCI application's
// communication parameters (access path, port, SNMP version, period) and the kind of each action (a reboot).
import type { Clock } from '../../core/ports/store.js'
import type { Repositories } from '../../core/ports/repositories.js'
import type { ClaimedPoll, MsciPollsRepository, PollOutcome } from './msci-polls.port.js'
import { communicationParameters, flattenData, type ActionType, type CommunicationEntry } from '../../core/domain/application-model.js'
import { isStoreUnavailable } from '../../core/store-errors.js'
import { createGroupCommit } from '../../core/services/ingest/group-commit.js'

export type { ClaimedPoll, PollOutcome } from './msci-polls.port.js'

/** A claimed poll with what its system's applications say. */
export interface PollTarget extends ClaimedPoll {
  /** The MSCI (or SNMP) application's communication `parameters` (msciParameters), {} when none. */
  parameters: Record<string, unknown>
  /** The kind of each action element of the system's applications, by data id (what command tasks name). */
  actions: ReadonlyMap<string, ActionType>
}

/**
 * How a gateway is reached: its MSCI application's communication parameters; an application speaking `SNMP` instead
 * is MSCI over SNMP (docs/protocols/msci.md), its parameters read the same way with the access SNMP.
 */
export function msciParameters (applications: ReadonlyArray<{ communication: readonly CommunicationEntry[] }>): Record<string, unknown> {
  const speaks = (type: string): boolean => applications.some((a) => a.communication.some((c) => c.type === type))
  if (speaks('MSCI') || !speaks('SNMP')) return communicationParameters(applications, 'MSCI')
  return { ...communicationParameters(applications, 'SNMP'), access: 'snmp' }
}

export interface MsciPollsDeps {
  repos: Pick<Repositories, 'applications'>
  /** The module's own store (msci-polls.repository.ts). */
  store: MsciPollsRepository
  clock: Clock
}

/** Polls failed in a row from which a system's commStatus is ERROR (before: WARNING). */
export const ERROR_AFTER_FAILURES = 3

export function createMsciPolls ({ repos, store, clock }: MsciPollsDeps) {
  // Outcomes of polls ending together are written together: thousands of gateways end their polls every second.
  const outcomes = createGroupCommit<PollOutcome>({
    write: async (items) => {
      await store.finish(items, ERROR_AFTER_FAILURES)
      return items.map(() => undefined)
    },
    maxBatch: 500,
    maxPending: 50_000,
    parallel: 1,
    failsWhole: isStoreUnavailable
  })

  /** Claims due polls and reads what their systems' applications say. */
  async function claim (limit: number, leaseMs: number, token: string): Promise<PollTarget[]> {
    const now = clock.now()
    const claimed = await store.claim(now, limit, now + leaseMs, token)
    if (claimed.length === 0) return []
    const apps = await repos.applications.forSystems(claimed.map((c) => c.systemUid))
    return claimed.map((c) => {
      const applications = apps.get(c.systemUid) ?? []
      const actions = new Map<string, ActionType>()
      for (const a of applications) {
        for (const d of flattenData(a.data)) if (d.elementType === 'action' && d.actionType !== null && !actions.has(d.id)) actions.set(d.id, d.actionType)
      }
      return { ...c, parameters: msciParameters(applications), actions }
    })
  }

  return {
    /** Keeps the poll rows in step with the systems' communication.msci.host. */
    sync: async () => await store.sync(clock.now()),
    /** Gateways with device tasks waiting become due now. */
    hurry: async () => await store.hurry(clock.now()),
    claim,
    /** Records a poll's end; resolves once written. */
    finish: async (outcome: PollOutcome) => { await outcomes.submit(outcome) },
    release: async (tokens: readonly string[]) => { await store.release(tokens) },
    drain: async () => { await outcomes.drain() }
  }
}

export type MsciPolls = ReturnType<typeof createMsciPolls>
