// Device credentials in an external broker, wired: the dynamic security sync of MQTT_URL's Mosquitto
// behind the core port (bin/context.ts), and `fleet broker sync`.
import type { Config } from '../core/config.js'
import type { Db } from '../core/ports/store.js'
import type { Logger } from '../core/logger.js'
import type { ExtraPeriodicJobs } from '../core/operations/jobs.js'
import { brokerAccount, createDynsecClient } from '../ingest/broker-sync/dynsec-client.js'
import { createDynsecSync, type DynsecSync } from '../ingest/broker-sync/dynsec-sync.js'
import type { SyncCounts } from '../ingest/broker-sync/dynsec-plan.js'
import { createBrokerLoginsRepository } from '../storage/repositories/broker-logins.repository.js'
import { StartFailure } from './start-failure.js'

/** The sync of device logins into Mosquitto's dynamic security; undefined with the embedded broker or MQTT_DYNSEC=false. */
export function openBrokerSync (config: Pick<Config, 'MQTT_URL' | 'MQTT_DYNSEC'>, db: Db, log: Logger): DynsecSync | undefined {
  if (config.MQTT_URL === undefined || !config.MQTT_DYNSEC) return undefined
  const { username } = brokerAccount(config.MQTT_URL)
  return createDynsecSync({
    dynsec: createDynsecClient(config.MQTT_URL),
    logins: createBrokerLoginsRepository(db),
    reserved: new Set(username === undefined ? [] : [username]),
    log
  })
}

export function countsLine (c: SyncCounts): string {
  const part = (o: Record<string, number>): string => Object.entries(o).map(([k, n]) => `${n} ${k}`).join(', ')
  return `broker sync: clients ${part(c.clients)}; roles ${part(c.roles)}`
}

/** `fleet broker sync`: every system's logins into the broker, what no system wants removed; prints the counts. */
export async function brokerCommand (config: Readonly<Config>, db: Db, log: Logger, args: readonly string[]): Promise<string> {
  if (args[0] !== 'sync' || args.length > 1) throw new StartFailure('usage: fleet broker sync')
  if (config.MQTT_URL === undefined) throw new StartFailure('fleet broker sync needs MQTT_URL (the external broker and the account that administers its dynamic security)')
  if (!config.MQTT_DYNSEC) throw new StartFailure('fleet broker sync keeps Mosquitto\'s dynamic security; MQTT_DYNSEC=false says the broker asks the HTTP endpoints instead')
  const sync = openBrokerSync(config, db, log)
  if (sync === undefined) throw new StartFailure('no broker to sync')
  try {
    return countsLine(await sync.fullSync())
  } catch (err) {
    throw new StartFailure(`broker sync failed: ${(err as Error).message}`)
  } finally { await sync.close() }
}

/**
 * The periodic full sync (MQTT_DYNSEC_RESYNC_S), a repeatable job so that one process of the cluster runs it each
 * period: it repairs what a killed process left undone and what two processes changing one system at once left
 * stale. Reads only, when the broker is in step: no device is disconnected. It runs on the process's own sync (the
 * one its API changes go through), so that in one process a full sync and a change never interleave.
 */
export function brokerResyncJob (config: Pick<Config, 'MQTT_DYNSEC_RESYNC_S'>, sync: DynsecSync | undefined, log: Logger): { jobs: ExtraPeriodicJobs } {
  if (sync === undefined || config.MQTT_DYNSEC_RESYNC_S === 0) return { jobs: {} }
  const run = async (): Promise<void> => {
    const counts = await sync.fullSync()
    const changed = counts.clients.created + counts.clients.updated + counts.clients.deleted + counts.roles.created + counts.roles.updated + counts.roles.deleted
    if (changed > 0) log.warn({ counts }, 'broker resync corrected the MQTT broker\'s device logins')
  }
  return { jobs: { 'broker.resync': { everyMs: config.MQTT_DYNSEC_RESYNC_S * 1000, run } } }
}
