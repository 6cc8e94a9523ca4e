// Device certificates and company CAs (docs/api.md#device-certificates-and-company-cas).
import { Type } from 'typebox'
import { CompanyParam, PageQuery, UidOf } from './common.schema.js'

const PEM_EXAMPLE = '-----BEGIN CERTIFICATE-----\nMIIBhTCCASugAwIBAgIU...\n-----END CERTIFICATE-----\n'

const viewFields = {
  fingerprint: Type.String({ description: 'SHA-256 of the certificate\'s DER, lowercase hexadecimal: how the paths name it' }),
  subject: Type.String({ description: 'Its subject, as `CN=..., O=...`' }),
  issuer: Type.String({ description: 'Its issuer, as `CN=..., O=...`' }),
  notBefore: Type.Integer({ description: 'Start of its validity (ms since 1970-01-01 UTC)' }),
  notAfter: Type.Integer({ description: 'End of its validity (ms since 1970-01-01 UTC)' }),
  status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('REVOKED')], { description: 'ACTIVE, or REVOKED for good' }),
  creationDate: Type.Integer({ description: 'When it was registered (ms)' }),
  revocationDate: Type.Union([Type.Integer(), Type.Null()], { description: 'When it was revoked (ms), null while ACTIVE' })
}

const certificateExample = {
  fingerprint: '5db6461c754af562a609c1f3e3b78198b72b4e1155883ac969e2877ab8746f41',
  subject: 'CN=SN-0001, O=Acme',
  issuer: 'CN=Acme devices CA, O=Acme',
  notBefore: 1798560291000,
  notAfter: 1830096291000,
  status: 'ACTIVE',
  creationDate: 1798560300000,
  revocationDate: null
}

export const CertificateView = Type.Object(viewFields, { description: 'A certificate registered on a system', examples: [certificateExample] })

export const CaView = Type.Object({
  ...viewFields,
  autoRegister: Type.Boolean({ description: 'Whether a certificate it signed for a serial number no system has creates a system' }),
  autoRegisteredSystems: Type.Integer({ description: 'How many systems certificates it signed created' })
}, {
  description: 'A CA registered by the company',
  examples: [{ ...certificateExample, subject: 'CN=Acme devices CA, O=Acme', autoRegister: true, autoRegisteredSystems: 12 }]
})

export const CertificateBody = Type.Object({
  certificate: Type.String({ description: 'The device\'s certificate in PEM (one `-----BEGIN CERTIFICATE-----` block, never a private key)' })
}, { examples: [{ certificate: PEM_EXAMPLE }] })

export const CaBody = Type.Object({
  certificate: Type.String({ description: 'The CA\'s certificate in PEM (basicConstraints CA:TRUE; one block, never a private key)' }),
  autoRegister: Type.Optional(Type.Boolean({ default: false, description: 'Create a system in INVENTORY for a certificate it signed whose CN no system has' }))
}, { examples: [{ certificate: PEM_EXAMPLE, autoRegister: true }] })

export const CertificateListQuery = Type.Object({
  company: Type.Optional(CompanyParam),
  offset: PageQuery.offset,
  size: PageQuery.size
})

export const CaListQuery = Type.Object({ offset: PageQuery.offset, size: PageQuery.size })

const Fingerprint = Type.String({ minLength: 1, description: 'SHA-256 fingerprint of the certificate: hexadecimal, with or without colons' })

export const SystemCertificateParams = Type.Object({ uid: UidOf('uid of the system'), fingerprint: Fingerprint })
export const CompanyCaParams = Type.Object({ uid: UidOf('uid of the company (the context company)'), fingerprint: Fingerprint })
