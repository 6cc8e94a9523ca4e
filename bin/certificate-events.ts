// What every process does when device certificates change (docs/security.md#device-certificates): the changes come on
// the certificates' own channel from whichever process committed them (this one included). A revoked certificate or
// CA closes the connections it logged in here at once (the next ones are refused by the login itself); a CA
// registered or revoked changes the CAs the TLS listeners ask clients for.
import type { AppContext } from '../core/context.js'
import type { Logger } from '../core/logger.js'
import type { DeviceTransport } from '../ingest/transport.js'
import type { TlsListeners } from '../ingest/tls/tls-listeners.js'

/** Starts following the changes (the TLS listeners get the registered CAs now); resolves with the function that stops. */
export async function followCertificates (ctx: AppContext, tls: TlsListeners | undefined, transports: readonly DeviceTransport[], log: Logger): Promise<() => void> {
  const { certificates } = ctx.services
  // One refresh at a time, in order: two changes close together end with the list of the later one.
  let refreshing = Promise.resolve()
  const refresh = (): void => {
    if (tls === undefined) return
    refreshing = refreshing.then(async () => { tls.setClientCAs(await certificates.trustedCAs()) })
      .catch((err: unknown) => { log.warn({ err }, 'registered CAs not read: the TLS listeners keep the previous list') })
  }
  const stop = await certificates.onChange((e) => {
    if (e.kind === 'certificate.revoked' || e.kind === 'ca.revoked') {
      const closed = transports.reduce((n, t) => n + (t.revoked?.(e.fingerprint) ?? 0), 0)
      if (closed > 0) log.info({ fingerprint: e.fingerprint, closed }, `${e.kind === 'ca.revoked' ? 'CA' : 'certificate'} revoked: its device connections closed`)
    }
    if (e.kind.startsWith('ca.')) refresh()
  })
  refresh()
  await refreshing
  return stop
}
