// Certificates and CAs as the API answers them (docs/api.md#device-certificates-and-company-cas): the PEM is kept,
// not answered (its user has it), and nothing of a private key ever reaches the store.
import type { CertificateStatus, CompanyCa, DeviceCertificate } from '../../ports/certificates.js'

export interface CertificateView {
  fingerprint: string
  subject: string
  issuer: string
  notBefore: number
  notAfter: number
  status: CertificateStatus
  creationDate: number
  revocationDate: number | null
}

export interface CaView extends CertificateView {
  autoRegister: boolean
  autoRegisteredSystems: number
}

export function certificateView (c: DeviceCertificate | CompanyCa): CertificateView {
  return {
    fingerprint: c.fingerprint,
    subject: c.subject,
    issuer: c.issuer,
    notBefore: c.notBefore,
    notAfter: c.notAfter,
    status: c.status,
    creationDate: c.createdAt,
    revocationDate: c.revokedAt
  }
}

export function caView (c: CompanyCa): CaView {
  return { ...certificateView(c), autoRegister: c.autoRegister, autoRegisteredSystems: c.autoRegistered }
}
