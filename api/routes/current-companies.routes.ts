import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errors } from '../schemas/common.schema.js'

const CompanyMembership = Type.Object({
  uid: Type.String({ description: 'uid of the company' }),
  name: Type.String({ description: 'Name of the company' }),
  administrator: Type.Boolean({ description: 'Whether the caller administers it' }),
  home: Type.Boolean({ description: 'Whether it is the caller\'s own company, the default context company' })
})

/**
 * The companies the caller may act in with `company=<uid>` (docs/api.md#using-the-api), which docs/api.md does
 * not list anywhere: the web console's company switcher offers them. Ours, not the spec's.
 */
const currentCompaniesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/users/current/companies', {
    config: { context: 'none' },
    schema: {
      tags: ['users'],
      summary: 'Companies of the caller',
      description: 'The companies the caller is a member of, the own company first, then by name. Any of them may be given as the company query parameter.',
      response: { 200: Type.Array(CompanyMembership), ...errors }
    }
  }, async (req) => {
    const home = req.actor.homeCompanyUid
    return [...req.actor.memberships]
      .map(([uid, m]) => ({ uid, name: m.companyName, administrator: m.administrator, home: uid === home }))
      .sort((a, b) => Number(b.home) - Number(a.home) || a.name.localeCompare(b.name))
  })
}

export default currentCompaniesRoutes
