// Device credentials kept in step in Mosquitto's dynamic security: the DeviceCredentialsSync port of
// core/ports/broker.ts. After each committed change the systems named are brought in step (their roles and clients
// read, compared with the store, the differences sent); `fleet broker sync` does the same for every system and
// removes what the service manages and no system wants any more.
import type { BrokerLogin, BrokerLoginsRepository, DeviceCredentialsSync } from '../../core/ports/broker.js'
import type { Logger } from '../../core/logger.js'
import { managedBy, planSync, roleLogins, roleName, ROLE_PREFIX, type SyncCounts } from './dynsec-plan.js'
import { apply, DynsecConflictError, readAll, readSome } from './dynsec-state.js'
import { BrokerUnavailableError, type DynsecClient } from './dynsec-client.js'

// Systems per page of a full sync's read of the store.
const STORE_PAGE = 1000
const RETRY_FIRST_MS = 1000
const RETRY_MAX_MS = 60_000
// Reads and plans again this many times when another writer made a client or role between the read and the write.
const CONFLICT_ATTEMPTS = 3

export interface DynsecSyncDeps {
  dynsec: DynsecClient
  logins: BrokerLoginsRepository
  /** Logins never given to a device: the service's own account at the broker. */
  reserved: ReadonlySet<string>
  log: Logger
  retryFirstMs?: number
}

export interface DynsecSync extends DeviceCredentialsSync {
  /** Brings these systems in step now. @throws when the broker does not answer or refuses a command */
  reconcile (systemUids: readonly string[]): Promise<SyncCounts>
  /** Every system in step, and the managed clients and roles of systems no longer there deleted. @throws as reconcile */
  fullSync (): Promise<SyncCounts>
  /**
   * Closes the connections of these systems' clients (a certificate of theirs revoked): disabling a client makes
   * Mosquitto kick its connections, enabling it again lets the device back in with what still logs it in.
   * @throws as reconcile
   */
  disconnect (systemUids: readonly string[]): Promise<void>
}

/** What one pass of a sync reads and writes. */
type SyncSides = Pick<DynsecSyncDeps, 'dynsec' | 'logins' | 'reserved'>

/** fn again, on a fresh read of the broker, while another writer creates what fn meant to create (the counts are the last plan's). */
async function again (fn: () => Promise<SyncCounts>): Promise<SyncCounts> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn()
    } catch (err) {
      if (!(err instanceof DynsecConflictError) || attempt >= CONFLICT_ATTEMPTS) throw err
    }
  }
}

async function reconcileOnce ({ dynsec, logins, reserved }: SyncSides, systemUids: readonly string[]): Promise<SyncCounts> {
  const uids = [...new Set(systemUids)]
  const wanted = await logins.ofSystems(uids)
  const first = await readSome(dynsec, uids.map(roleName), wanted.map((l) => l.identifier))
  const former = [...first.roles.values()].flatMap(roleLogins).filter((id) => !first.clients.has(id))
  const more = former.length === 0 ? undefined : await readSome(dynsec, [], former)
  const clients = new Map([...first.clients, ...more?.clients ?? []])
  const plan = planSync({ systemUids: uids, logins: wanted, clients, roles: first.roles, strays: false, reserved })
  await apply(dynsec, plan.commands)
  return plan.counts
}

async function fullSyncOnce ({ dynsec, logins, reserved }: SyncSides): Promise<SyncCounts> {
  const state = await readAll(dynsec)
  const all: BrokerLogin[] = []
  for (let after = ''; ;) {
    const page = await logins.page(after, STORE_PAGE)
    all.push(...page.logins)
    if (page.last === undefined) break
    after = page.last
  }
  const systemUids = new Set(all.map((l) => l.systemUid))
  for (const r of state.roles.keys()) if (r.startsWith(ROLE_PREFIX)) systemUids.add(r.slice(ROLE_PREFIX.length))
  const plan = planSync({ systemUids: [...systemUids], logins: all, clients: state.clients, roles: state.roles, strays: true, reserved })
  await apply(dynsec, plan.commands)
  return plan.counts
}

async function disconnectOnce ({ dynsec, logins }: SyncSides, systemUids: readonly string[]): Promise<void> {
  const wanted = await logins.ofSystems([...new Set(systemUids)])
  const { clients } = await readSome(dynsec, [], wanted.map((l) => l.identifier))
  // Only the service's own clients of these systems: a client without the mark is someone else's, never touched.
  const ours = wanted.filter((l) => { const c = clients.get(l.identifier); return c !== undefined && managedBy(c)?.systemUid === l.systemUid })
  await apply(dynsec, ours.flatMap((l) => [{ command: 'disableClient', username: l.identifier }, { command: 'enableClient', username: l.identifier }]))
}

export function createDynsecSync ({ dynsec, logins, reserved, log, retryFirstMs = RETRY_FIRST_MS }: DynsecSyncDeps): DynsecSync {
  const sides: SyncSides = { dynsec, logins, reserved }
  // One change at a time in this process: two edits of one system must reach the broker in their order.
  let chain: Promise<unknown> = Promise.resolve()
  const serial = async <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn)
    chain = run.catch(() => {})
    return await run
  }
  const retry = new Set<string>()
  let retryMs = retryFirstMs
  let timer: NodeJS.Timeout | undefined
  let healthy = true
  let closed = false

  const reconcile = async (systemUids: readonly string[]): Promise<SyncCounts> => await again(async () => await reconcileOnce(sides, systemUids))
  const fullSync = async (): Promise<SyncCounts> => await again(async () => await fullSyncOnce(sides))

  function retryNow (): void {
    timer = undefined
    const uids = [...retry]
    retry.clear()
    attempt(uids).catch(() => {}) // attempt never throws; the catch is for the linter's floating promise
  }

  function scheduleRetry (): void {
    if (timer !== undefined || closed) return
    timer = setTimeout(retryNow, retryMs)
    timer.unref()
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS)
  }

  async function attempt (uids: readonly string[]): Promise<void> {
    try {
      await serial(async () => await reconcile(uids))
      healthy = true
      retryMs = retryFirstMs
    } catch (err) {
      // Only a broker away makes the next changes skip the wait; a refused command is retried alone.
      if (err instanceof BrokerUnavailableError) healthy = false
      for (const uid of uids) retry.add(uid)
      log.warn({ err: { message: (err as Error).message }, systems: uids.length }, 'device credentials not synced to the MQTT broker; retrying')
      scheduleRetry()
    }
  }

  // The broker back (a restart for a new trust bundle takes a second or two): the waiting changes go now, not at the
  // end of a backoff that grew while it was away.
  dynsec.onReady?.(() => {
    if (timer === undefined || closed) return
    clearTimeout(timer)
    retryMs = retryFirstMs
    retryNow()
  })

  return {
    reconcile: async (uids) => await serial(async () => await reconcile(uids)),
    fullSync: async () => await serial(fullSync),
    disconnect: async (uids) => { await serial(async () => { await disconnectOnce(sides, uids) }) },
    async changed (systemUids) {
      if (systemUids.length === 0 || closed) return
      // While the broker is known to be away, a change does not make its request wait: it joins the retries.
      if (!healthy) { for (const uid of systemUids) retry.add(uid); scheduleRetry(); return }
      await attempt(systemUids)
    },
    async close () {
      closed = true
      clearTimeout(timer)
      await chain
      await dynsec.close()
    }
  }
}
