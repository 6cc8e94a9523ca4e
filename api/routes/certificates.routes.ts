import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { CertificatesService } from '../../core/services/certificates/certificates.service.js'
import { FleetError } from '../../core/errors.js'
import { CompanyQuery, errors, Page, uidParams } from '../schemas/common.schema.js'
import { CaBody, CaListQuery, CaView, CertificateBody, CertificateListQuery, CertificateView, CompanyCaParams, SystemCertificateParams } from '../schemas/certificates.schema.js'

const SystemUid = uidParams('uid of the system')
const CompanyUid = uidParams('uid of the company (the context company)')

export interface CertificatesRoutesOptions { certificates: CertificatesService }

const STATUSES = 'ACTIVE or REVOKED'
const REVOKE = 'Revoking is for good and idempotent: a revoked one is answered as it is.'

/**
 * docs/api.md#device-certificates-and-company-cas. A system's certificates follow the systems' rights (viewing,
 * editing) in the context company; a company's CAs its details right to read and its administrators to change.
 */
const certificatesRoutes: FastifyPluginAsyncTypebox<CertificatesRoutesOptions> = async (app, { certificates }) => {
  // A private key sent by mistake is refused whole, wherever it is in the body, and never repeated in the answer.
  app.addHook('preValidation', async (req) => {
    if (req.body !== undefined && JSON.stringify(req.body).includes('PRIVATE KEY')) {
      throw new FleetError('certificate.invalid', ['certificate', 'a private key was sent: send the certificate alone and keep the key on the device'])
    }
  })

  app.get('/systems/:uid/certificates', {
    config: { right: 'entities.systems.view' },
    schema: { tags: ['systems'], summary: 'Certificates of a system', description: `The certificates registered on the system, oldest first, each ${STATUSES}.`, params: SystemUid, querystring: CertificateListQuery, response: { 200: Page(CertificateView), ...errors } }
  }, async (req) => await certificates.listForSystem(req.access, req.params.uid, req.query))

  app.post('/systems/:uid/certificates', {
    config: { right: 'entities.systems.edit' },
    schema: {
      tags: ['systems'],
      summary: 'Register a certificate on a system',
      description: 'A device presenting this certificate over TLS logs in as the system, whoever issued it. certificate.invalid: not one PEM certificate (or a private key); certificate.expired: past its notAfter; certificate.already.registered: on any system or as any company\'s CA.',
      params: SystemUid,
      querystring: CompanyQuery,
      body: CertificateBody,
      response: { 200: CertificateView, ...errors }
    }
  }, async (req) => await certificates.registerForSystem(req.access, req.params.uid, req.body))

  app.post('/systems/:uid/certificates/:fingerprint/revoke', {
    config: { right: 'entities.systems.edit' },
    schema: { tags: ['systems'], summary: 'Revoke a certificate of a system', description: `The certificate logs in no more and its connections are closed. ${REVOKE} certificate.unknown: not one of this system's.`, params: SystemCertificateParams, querystring: CompanyQuery, response: { 200: CertificateView, ...errors } }
  }, async (req) => await certificates.revokeForSystem(req.access, req.params.uid, req.params.fingerprint))

  app.get('/companies/:uid/cas', {
    config: { right: 'accountNetwork.company.viewDetails', context: 'path' },
    schema: { tags: ['companies'], summary: 'CAs of the company', description: `The CAs the company registered, oldest first, each ${STATUSES}.`, params: CompanyUid, querystring: CaListQuery, response: { 200: Page(CaView), ...errors } }
  }, async (req) => await certificates.listCas(req.access, req.query))

  app.post('/companies/:uid/cas', {
    config: { right: 'administrator', context: 'path' },
    schema: {
      tags: ['companies'],
      summary: 'Register a CA of the company',
      description: 'Certificates it signs log in the company\'s systems whose serial number or IMEI is their CN or a SAN; with autoRegister, one whose CN no system has creates a system in INVENTORY. certificate.invalid: not one PEM CA certificate (or a private key); certificate.expired; certificate.already.registered.',
      params: CompanyUid,
      body: CaBody,
      response: { 200: CaView, ...errors }
    }
  }, async (req) => await certificates.registerCa(req.access, req.body))

  app.post('/companies/:uid/cas/:fingerprint/revoke', {
    config: { right: 'administrator', context: 'path' },
    schema: { tags: ['companies'], summary: 'Revoke a CA of the company', description: `No certificate it signed logs in any more, and their connections are closed. ${REVOKE} certificate.unknown: not one of the company's CAs.`, params: CompanyCaParams, response: { 200: CaView, ...errors } }
  }, async (req) => await certificates.revokeCa(req.access, req.params.fingerprint))
}

export default certificatesRoutes
