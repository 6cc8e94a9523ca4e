// The external Mosquitto's trust bundle kept by the processes with the worker role (BROKER_CA_FILE;
// docs/cluster.md#device-certificates-with-the-external-broker): written at start, after every certificate change
// heard on the certificates' channel (decision 0030), and by the periodic resync; and the broker's clients brought in
// step with those changes (a pinned certificate may give a system without a password its first login; a revoked one
// closes the system's connections). The file is replaced whole (a temporary file renamed over it), never half
// written, and only when its text changes: every change makes the broker restart (deploy/mosquitto/start.sh).
import { randomBytes } from 'node:crypto'
import { open, readFile, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { Logger } from '../../core/logger.js'
import type { EventListener } from '../../core/ports/events.js'
import type { CertificateEvent, CertificatesRepository } from '../../core/ports/certificates.js'
import { buildBundle } from './trust-bundle.js'
import type { DynsecSync } from './dynsec-sync.js'

const RETRY_FIRST_MS = 1000
const RETRY_MAX_MS = 60_000
// Tries of a revoked certificate's disconnection: the broker may be restarting for the previous bundle (a second or so).
const KICK_ATTEMPTS = 3

export interface BrokerTrustDeps {
  /** BROKER_CA_FILE. */
  file: string
  /** The text of TLS_CLIENT_CA_FILE, read at each write ('' without it). @throws naming the variable */
  operator: () => Promise<string>
  certificates: Pick<CertificatesRepository, 'activeCaPems' | 'activePinned'>
  /** BROKER_COMPANY_CAS: the companies' CAs go in the bundle. */
  companyCas: boolean
  reserved: ReadonlySet<string>
  /** The dynamic security sync (absent with MQTT_DYNSEC=false: the bundle alone is kept). */
  sync: DynsecSync | undefined
  /** Hears every certificate change of the cluster (CertificatesService.onChange). */
  onChange: (listener: EventListener<CertificateEvent>) => Promise<() => void>
  log: Logger
  retryFirstMs?: number
}

export interface BrokerTrust {
  /** Writes the bundle now; answers whether its text changed. @throws when it cannot be read or written */
  write (): Promise<boolean>
  /** Writes it now (a failure is logged and tried again) and after every change heard from now on. */
  start (): Promise<void>
  close (): Promise<void>
}

/** Replaces `file` with `text` unless it holds it already; answers whether it changed. */
export async function replaceFile (file: string, text: string): Promise<boolean> {
  if (await readFile(file, 'utf8').catch(() => undefined) === text) return false
  // Beside the file, so that the rename stays in one file system; a name the broker's script never compares.
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    const h = await open(tmp, 'w', 0o644)
    try {
      await h.writeFile(text)
      await h.sync()
    } finally { await h.close() }
    await rename(tmp, file)
  } catch (err) {
    await rm(tmp, { force: true })
    throw err
  }
  return true
}

/** Closes the system's connections at the broker, trying again while it is away; a failure is logged, not thrown. */
async function kick (sync: DynsecSync, system: string, log: Logger, waitMs: number, stopped: () => boolean): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await sync.disconnect([system])
      return
    } catch (err) {
      if (attempt >= KICK_ATTEMPTS || stopped()) {
        log.warn({ err: { message: (err as Error).message }, system }, 'revoked certificate: the MQTT broker did not disconnect the system\'s devices')
        return
      }
      await new Promise((resolve) => setTimeout(resolve, waitMs * attempt).unref())
    }
  }
}

/** The file's side: one write at a time (two racing could leave the older text last), failures tried again. */
function bundleWriter (deps: BrokerTrustDeps, retryFirstMs: number): Pick<BrokerTrust, 'write' | 'close'> & { rewrite: () => Promise<void> } {
  const { file, certificates, log } = deps
  let chain: Promise<unknown> = Promise.resolve()
  let retryMs = retryFirstMs
  let timer: NodeJS.Timeout | undefined
  let closed = false

  async function write (): Promise<boolean> {
    const run = chain.then(async () => {
      const bundle = buildBundle({
        operator: await deps.operator(),
        companyCas: deps.companyCas ? await certificates.activeCaPems() : [],
        pinned: await certificates.activePinned(),
        reserved: deps.reserved
      })
      const changed = await replaceFile(file, bundle.text)
      if (changed) log.info({ file, certificates: bundle.counts }, 'broker trust bundle written')
      return changed
    })
    chain = run.catch(() => {})
    return await run
  }

  /** Writes, and on failure logs and tries again later (1 s, then twice as long each time, up to a minute). */
  async function rewrite (): Promise<void> {
    try {
      await write()
      retryMs = retryFirstMs
    } catch (err) {
      log.error({ err: { message: (err as Error).message }, file }, 'broker trust bundle not written; retrying')
      if (timer !== undefined || closed) return
      timer = setTimeout(() => { timer = undefined; rewrite().catch(() => {}) }, retryMs)
      timer.unref()
      retryMs = Math.min(retryMs * 2, RETRY_MAX_MS)
    }
  }

  return {
    write,
    rewrite,
    async close () {
      closed = true
      clearTimeout(timer)
      await chain
    }
  }
}

export function createBrokerTrust (deps: BrokerTrustDeps): BrokerTrust {
  const { sync, log } = deps
  const retryFirstMs = deps.retryFirstMs ?? RETRY_FIRST_MS
  const bundle = bundleWriter(deps, retryFirstMs)
  let stop: (() => void) | undefined
  let closed = false
  // The changes being brought to the broker, awaited by close() before the sync they use is closed.
  const pending = new Set<Promise<void>>()

  async function heard (e: CertificateEvent): Promise<void> {
    if (sync !== undefined && e.kind === 'certificate.revoked') {
      await sync.changed([e.system])
      // Before the bundle changes: the broker restarts for a new bundle (start.sh), and cannot be told meanwhile. The
      // device may come back until then; the restart closes its connection again, and the new bundle refuses it.
      await kick(sync, e.system, log, retryFirstMs, () => closed)
    }
    await bundle.rewrite()
    if (sync === undefined) return
    if (e.kind === 'certificate.registered') await sync.changed([e.system])
    // A company's CA decides which of its systems log in by certificate; rare enough for a full sync.
    if ((e.kind === 'ca.registered' || e.kind === 'ca.revoked') && deps.companyCas) await sync.fullSync()
  }

  return {
    write: bundle.write,
    async start () {
      stop = await deps.onChange((e) => {
        const p = heard(e).catch((err: unknown) => {
          log.warn({ err: { message: (err as Error).message }, event: e.kind }, 'certificate change not brought to the MQTT broker; the next resync will')
        }).finally(() => { pending.delete(p) })
        pending.add(p)
      })
      await bundle.rewrite()
    },
    async close () {
      closed = true
      stop?.()
      await Promise.all(pending)
      await bundle.close()
    }
  }
}
