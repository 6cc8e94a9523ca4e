import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendEmpty } from '../reply.js'
import { Type } from 'typebox'
import type { CompaniesService } from '../../core/services/companies.service.js'
import { MAX_PICTURE_BYTES, type CompanyPictureService } from '../../core/services/company-picture.service.js'
import { FleetError } from '../../core/errors.js'
import { Empty, errors, uidParams } from '../schemas/common.schema.js'
import { AdministratorsBody, AdministratorView, CompanyEditBody, CompanyView, PictureParams, PictureResponse } from '../schemas/companies.schema.js'

const CompanyUid = uidParams('uid of the company (the context company)')

export interface CompaniesRoutesOptions { companies: CompaniesService, pictures: CompanyPictureService }

/** docs/api.md#users-and-companies: the context company is the `uid` of the path. */
const companiesRoutes: FastifyPluginAsyncTypebox<CompaniesRoutesOptions> = async (app, { companies, pictures }) => {
  app.get('/company/:uid', {
    config: { right: 'accountNetwork.company.viewDetails', context: 'path' },
    schema: { tags: ['companies'], summary: 'Company details', description: 'The caller\'s company or a partner\'s.', params: CompanyUid, response: { 200: CompanyView, ...errors } }
  }, async (req) => companies.details(req.access))

  app.put('/company/:uid', {
    config: { right: 'administrator', context: 'path' },
    schema: { tags: ['companies'], summary: 'Edit the company', description: 'Administrators change name, address, ipFiltering, ipFilters, deviceIpFiltering and deviceIpFilters; other fields are ignored. Turning a filtering on needs its filters; a range needs both ends in order.', params: CompanyUid, body: CompanyEditBody, response: { 200: CompanyView, ...errors } }
  }, async (req) => await companies.edit(req.access, req.body))

  app.get('/company/:uid/administrators', {
    config: { right: 'accountNetwork.company.viewAdministrators', context: 'path' },
    schema: { tags: ['companies'], summary: 'Administrators of the company', description: 'The users holding the administrator profile.', params: CompanyUid, response: { 200: Type.Array(AdministratorView, { description: 'The administrators' }), ...errors } }
  }, async (req) => await companies.administrators(req.access))

  app.put('/company/:uid/administrators', {
    config: { right: 'administrator', context: 'path' },
    schema: { tags: ['companies'], summary: 'Replace the administrators', description: 'The list replaces the current one: to add an administrator, send the current uids and the new one. An empty list is refused.', params: CompanyUid, body: AdministratorsBody, response: { 200: Type.Array(AdministratorView, { description: 'The new administrators' }), ...errors } }
  }, async (req) => await companies.setAdministrators(req.access, req.body))

  app.get('/company/:uid/picture/:name', {
    config: { right: 'accountNetwork.company.viewDetails', context: 'path' },
    schema: {
      tags: ['companies'],
      summary: 'Company picture: normal, small or icon',
      description: 'The image in the size asked; company.file.not.found while none was uploaded.',
      params: PictureParams,
      response: { 200: PictureResponse, ...errors }
    }
  }, async (req, reply) => {
    const picture = await pictures.get(req.access, req.params.name)
    return await reply.type(picture.contentType).send(picture.data)
  })

  await app.register(async (scope) => {
    // The picture is the raw body; any content type reaches the service, which answers invalid.format.
    // The transport stops reading at the limit of docs/api.md#limits (750 KB); a larger body is still a
    // picture too large, so it answers file.too.large (400) rather than the generic 413.
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_PICTURE_BYTES }, (_req, body, done) => { done(null, body) })
    scope.setErrorHandler(async (err) => {
      if ((err as { code?: unknown }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') throw new FleetError('file.too.large', [String(MAX_PICTURE_BYTES)])
      throw err // to the error handler of the API (api/plugins/error-handler.ts)
    })
    scope.post('/company/:uid/picture', {
      config: { right: 'administrator', context: 'path' },
      bodyLimit: MAX_PICTURE_BYTES,
      schema: {
        tags: ['companies'],
        summary: 'Upload the picture (JPEG or PNG, at most 750 KB and 1024 px per side)',
        description: 'The body is the image itself (Content-Type image/jpeg or image/png). The service keeps it and makes the 32 px and 16 px sizes; answers an empty body.',
        params: CompanyUid,
        response: { 200: Empty, ...errors }
      }
    }, async (req, reply) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)
      await pictures.upload(req.access, body)
      return await sendEmpty(reply)
    })
  })
}

export default companiesRoutes
