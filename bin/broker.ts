// Device credentials in an external broker, wired: the dynamic security sync of MQTT_URL's Mosquitto
// behind the core port (bin/context.ts), the broker's trust bundle (BROKER_CA_FILE), and `fleet broker sync`.
import { readFile } from 'node:fs/promises'
import type { Config } from '../core/config.js'
import type { Db } from '../core/ports/store.js'
import type { Logger } from '../core/logger.js'
import type { ExtraPeriodicJobs } from '../core/operations/jobs.js'
import type { CertificatesService } from '../core/services/certificates/certificates.service.js'
import { setTimeout as delay } from 'node:timers/promises'
import { brokerAccount, BrokerUnavailableError, createDynsecClient } from '../ingest/broker-sync/dynsec-client.js'
import { createDynsecSync, type DynsecSync } from '../ingest/broker-sync/dynsec-sync.js'
import type { SyncCounts } from '../ingest/broker-sync/dynsec-plan.js'
import { createBrokerTrust, type BrokerTrust } from '../ingest/broker-sync/broker-trust.js'
import { createBrokerLoginsRepository, type BrokerCertificateTrust } from '../storage/repositories/broker-logins.repository.js'
import { createCertificatesRepository } from '../storage/repositories/certificates.repository.js'
import { StartFailure } from './start-failure.js'

type BrokerConfig = Pick<Config, 'MQTT_URL' | 'MQTT_DYNSEC' | 'BROKER_CA_FILE' | 'BROKER_COMPANY_CAS' | 'TLS_CLIENT_CA_FILE'>

/** Logins never given to a device: the service's own account at the broker. */
function reservedLogins (mqttUrl: string): Set<string> {
  const { username } = brokerAccount(mqttUrl)
  return new Set(username === undefined ? [] : [username])
}

/** What the broker's bundle trusts (BROKER_CA_FILE set), so that the systems those certificates name get logins. */
function certificateTrust (config: BrokerConfig): BrokerCertificateTrust | undefined {
  if (config.BROKER_CA_FILE === undefined) return undefined
  return { operatorCa: config.TLS_CLIENT_CA_FILE !== undefined, companyCas: config.BROKER_COMPANY_CAS }
}

/** The sync of device logins into Mosquitto's dynamic security; undefined with the embedded broker or MQTT_DYNSEC=false. */
export function openBrokerSync (config: BrokerConfig, db: Db, log: Logger): DynsecSync | undefined {
  if (config.MQTT_URL === undefined || !config.MQTT_DYNSEC) return undefined
  return createDynsecSync({
    dynsec: createDynsecClient(config.MQTT_URL),
    logins: createBrokerLoginsRepository(db, certificateTrust(config)),
    reserved: reservedLogins(config.MQTT_URL),
    log
  })
}

/**
 * The broker's trust bundle, kept by a process with the worker role (and `fleet broker sync`); undefined without
 * BROKER_CA_FILE. Not started: start() writes it and listens for certificate changes.
 */
export function openBrokerTrust (config: BrokerConfig, db: Db, certificates: Pick<CertificatesService, 'onChange'>, sync: DynsecSync | undefined, log: Logger): BrokerTrust | undefined {
  const file = config.BROKER_CA_FILE
  if (file === undefined || config.MQTT_URL === undefined) return undefined
  const operatorFile = config.TLS_CLIENT_CA_FILE
  return createBrokerTrust({
    file,
    operator: async () => operatorFile === undefined
      ? ''
      : await readFile(operatorFile, 'utf8').catch((err: NodeJS.ErrnoException) => { throw new Error(`TLS_CLIENT_CA_FILE cannot be read (${err.code ?? err.message})`) }),
    certificates: createCertificatesRepository(db),
    companyCas: config.BROKER_COMPANY_CAS,
    reserved: reservedLogins(config.MQTT_URL),
    sync,
    onChange: certificates.onChange,
    log
  })
}

export function countsLine (c: SyncCounts): string {
  const part = (o: Record<string, number>): string => Object.entries(o).map(([k, n]) => `${n} ${k}`).join(', ')
  return `broker sync: clients ${part(c.clients)}; roles ${part(c.roles)}`
}

// How long `fleet broker sync` waits for a broker that closed its connection mid-sync to be back (a restart for a new
// trust bundle takes a second or two), and how often it looks.
const RESTART_WAIT_MS = 30_000
const RESTART_POLL_MS = 500

/**
 * The full sync, again while the broker is restarting: it closed the connection during the sync (deploy/mosquitto/
 * start.sh restarts it for every new bundle, and the bundle may change under the command). A broker never reached
 * fails at once: that is a wrong MQTT_URL or a broker down, not a restart. A full sync is safe to run again.
 */
export async function fullSyncThroughRestarts (sync: Pick<DynsecSync, 'fullSync'>, waitMs = RESTART_WAIT_MS, pollMs = RESTART_POLL_MS): Promise<SyncCounts> {
  const until = Date.now() + waitMs
  let reached = false
  for (;;) {
    try {
      return await sync.fullSync()
    } catch (err) {
      if (!(err instanceof BrokerUnavailableError)) throw err
      reached ||= err.lost
      if (!reached || Date.now() >= until) throw err
      await delay(pollMs)
    }
  }
}

/** `fleet broker sync`: every system's logins into the broker, what no system wants removed; prints the counts. */
export async function brokerCommand (config: Readonly<Config>, db: Db, log: Logger, args: readonly string[]): Promise<string> {
  if (args[0] !== 'sync' || args.length > 1) throw new StartFailure('usage: fleet broker sync')
  if (config.MQTT_URL === undefined) throw new StartFailure('fleet broker sync needs MQTT_URL (the external broker and the account that administers its dynamic security)')
  if (!config.MQTT_DYNSEC) throw new StartFailure('fleet broker sync keeps Mosquitto\'s dynamic security; MQTT_DYNSEC=false says the broker asks the HTTP endpoints instead')
  const sync = openBrokerSync(config, db, log)
  if (sync === undefined) throw new StartFailure('no broker to sync')
  // No certificate change is listened for here: the bundle is written once, beside the full sync.
  const trust = openBrokerTrust(config, db, { onChange: async () => () => {} }, undefined, log)
  try {
    const line = countsLine(await fullSyncThroughRestarts(sync))
    if (trust === undefined) return line
    return `${line}; trust bundle ${config.BROKER_CA_FILE ?? ''} ${await trust.write() ? 'written' : 'unchanged'}`
  } catch (err) {
    throw new StartFailure(`broker sync failed: ${(err as Error).message}`)
  } finally { await sync.close() }
}

/**
 * The periodic full sync (MQTT_DYNSEC_RESYNC_S), a repeatable job so that one process of the cluster runs it each
 * period: it repairs what a killed process left undone and what two processes changing one system at once left
 * stale, and writes the trust bundle again (a certificate change heard by no worker). Reads only, when the broker is
 * in step: no device is disconnected. It runs on the process's own sync (the one its API changes go through), so
 * that in one process a full sync and a change never interleave.
 */
export function brokerResyncJob (config: Pick<Config, 'MQTT_DYNSEC_RESYNC_S'>, sync: DynsecSync | undefined, log: Logger, trust?: BrokerTrust): { jobs: ExtraPeriodicJobs } {
  if ((sync === undefined && trust === undefined) || config.MQTT_DYNSEC_RESYNC_S === 0) return { jobs: {} }
  const run = async (): Promise<void> => {
    if (trust !== undefined && await trust.write()) log.warn('broker resync rewrote the MQTT broker\'s trust bundle')
    if (sync === undefined) return
    const counts = await sync.fullSync()
    const changed = counts.clients.created + counts.clients.updated + counts.clients.deleted + counts.roles.created + counts.roles.updated + counts.roles.deleted
    if (changed > 0) log.warn({ counts }, 'broker resync corrected the MQTT broker\'s device logins')
  }
  return { jobs: { 'broker.resync': { everyMs: config.MQTT_DYNSEC_RESYNC_S * 1000, run } } }
}

/**
 * What a process keeps of the external broker beside its API changes: with the worker role, the trust bundle (written
 * now and at every certificate change) and the periodic resync job; close() stops the first.
 */
export async function brokerUpkeep (config: Readonly<Config>, db: Db, certificates: Pick<CertificatesService, 'onChange'>, sync: DynsecSync | undefined, log: Logger, worker: boolean): Promise<{ jobs: ExtraPeriodicJobs, close: () => Promise<void> }> {
  const trust = worker ? openBrokerTrust(config, db, certificates, sync, log) : undefined
  await trust?.start()
  return { ...brokerResyncJob(config, sync, log, trust), close: async () => { await trust?.close() } }
}
