// The TLS context every TLS listener of the process shares (MQTTS, HTTPS), and its changes while they run: the files
// rewritten on disk or a SIGHUP (reload), the companies' CAs changed (setClientCAs). A new context is given to each
// server with setSecureContext: the handshakes after it use it, the connections already open keep theirs, and
// nothing is closed or bound again (docs/decisions/0029-tls-listeners.md). A bad new file keeps the old context.
import { createHash, X509Certificate } from 'node:crypto'
import type { Server as TlsServer, TlsOptions } from 'node:tls'
import type { Logger } from '../../core/logger.js'
import { ConfigError } from '../../core/config.js'
import { readTlsFiles, type TlsFiles, type TlsMaterial } from './tls-files.js'
import { checkContext, contextOptions, serverOptions } from './secure-context.js'
import { watchFiles } from './file-watch.js'

export interface TlsListeners {
  /** The options of a new TLS server, on the context of now; give the server to track() as well. */
  serverOptions (): TlsOptions
  /** The server gets every later context (until it closes). */
  track (server: TlsServer): void
  /**
   * The CAs trusted for client certificates beside TLS_CLIENT_CA_FILE's (the companies' registered CAs), PEM each;
   * each call replaces the list of the one before. A PEM that is no certificate is left out (logged).
   */
  setClientCAs (pems: readonly string[]): void
  /** Reads the files again and applies them; false (logged) when one is bad or, for a file change, none changed. */
  reload (reason: 'SIGHUP' | 'file change' | string): Promise<boolean>
  /** SHA-256 of the server certificate in use (lowercase hex). */
  fingerprint (): string
  /**
   * Fingerprints (lowercase hex) of TLS_CLIENT_CA_FILE's CAs as last read: the operator's own CAs, which vouch for a
   * device of any company (docs/security.md#device-certificates).
   */
  operatorCAs (): ReadonlySet<string>
  /** Stops watching the files. */
  close (): void
}

const fingerprintsOf = (pems: readonly string[]): ReadonlySet<string> =>
  new Set(pems.map((pem) => createHash('sha256').update(new X509Certificate(pem).raw).digest('hex')))

const same = (a: TlsMaterial, b: TlsMaterial): boolean =>
  a.cert === b.cert && a.key === b.key && a.clientCAs.join('\n') === b.clientCAs.join('\n')

/** Reads the files (throws the ConfigError of a bad one: the start fails) and watches their folders. */
export async function createTlsListeners (files: TlsFiles, log: Logger): Promise<TlsListeners> {
  let material = await readTlsFiles(files)
  let extraCAs: readonly string[] = []
  let options = contextOptions(material, extraCAs)
  let operator = fingerprintsOf(material.clientCAs)
  checkContext(options)
  const servers = new Set<TlsServer>()
  let reloading: Promise<boolean> = Promise.resolve(true)

  /** Builds the context of next and gives it to every server; false (logged) when OpenSSL refuses it. */
  function apply (next: TlsMaterial, cas: readonly string[]): boolean {
    const nextOptions = contextOptions(next, cas)
    try {
      checkContext(nextOptions)
    } catch (err) {
      log.error({ code: (err as { code?: unknown }).code }, 'TLS context not changed: OpenSSL refused the new certificate, key or CAs (TLS_CERT_FILE, TLS_KEY_FILE, TLS_CLIENT_CA_FILE); the listeners keep the previous one')
      return false
    }
    options = nextOptions
    if (next !== material) operator = fingerprintsOf(next.clientCAs)
    material = next
    extraCAs = cas
    for (const s of servers) s.setSecureContext(options)
    return true
  }

  async function readAndApply (reason: string): Promise<boolean> {
    let next: TlsMaterial
    try {
      next = await readTlsFiles(files)
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err
      log.error({ variable: err.variable, reason }, `TLS files not reloaded: ${err.message.replace(/^invalid configuration: /, '')}; the listeners keep the previous certificate`)
      return false
    }
    // A change in the folder that is not one of the files (an editor's swap file, another certificate).
    if (reason === 'file change' && same(next, material)) return false
    if (!apply(next, extraCAs)) return false
    log.info({ reason, fingerprint: next.fingerprint }, 'TLS certificate reloaded')
    return true
  }

  const reload = async (reason: string): Promise<boolean> => {
    // One at a time, in order: a SIGHUP during a file change's reload reads the files after it.
    reloading = reloading.catch(() => false).then(async () => await readAndApply(reason))
    return await reloading
  }

  const paths = [files.TLS_CERT_FILE, files.TLS_KEY_FILE, files.TLS_CLIENT_CA_FILE].filter((p): p is string => p !== undefined)
  const watch = watchFiles(paths, () => { reload('file change').catch((err: unknown) => { log.error({ err }, 'TLS reload failed') }) },
    (err) => { log.warn({ err }, 'TLS files not watched: a change is applied on SIGHUP only') })

  return {
    serverOptions: () => serverOptions(options),
    track (server) {
      servers.add(server)
      server.once('close', () => { servers.delete(server) })
    },
    setClientCAs (pems) {
      const valid = pems.filter((pem) => { try { return new X509Certificate(pem) !== undefined } catch { return false } })
      if (valid.length < pems.length) log.warn({ leftOut: pems.length - valid.length }, 'client CAs left out of the TLS listeners: not a PEM certificate')
      apply(material, valid)
    },
    reload,
    fingerprint: () => material.fingerprint,
    operatorCAs: () => operator,
    close: () => { watch.close() }
  }
}
