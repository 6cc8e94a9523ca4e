// The client certificate of a connection that serves several requests (HTTPS keep-alive): read once per TLS socket,
// since parsing its names costs more than the request that asks. A plain socket has none.
import { TLSSocket } from 'node:tls'
import type { PresentedCertificate } from '../../core/domain/device-certificate.js'
import { presentedCertificate } from './presented.js'

const read = new WeakMap<TLSSocket, PresentedCertificate | null>()

/** The certificate the client presented on this connection; undefined in clear or when it presented none. */
export function certificateOf (socket: unknown): PresentedCertificate | undefined {
  if (!(socket instanceof TLSSocket)) return undefined
  let cert = read.get(socket)
  if (cert === undefined) {
    cert = presentedCertificate(socket) ?? null
    read.set(socket, cert)
  }
  return cert ?? undefined
}
