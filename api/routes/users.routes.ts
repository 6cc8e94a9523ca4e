import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { sendEmpty } from '../reply.js'
import { Type } from 'typebox'
import type { UsersService } from '../../core/services/users.service.js'
import { Empty, errors, Page } from '../schemas/common.schema.js'
import { UserCompanyQuery, UserEditBody, UserFindQuery, UserListItem, UserUidParams, UserView } from '../schemas/users.schema.js'

export interface UsersRoutesOptions { users: UsersService }

/** docs/api.md#users-and-companies. */
const usersRoutes: FastifyPluginAsyncTypebox<UsersRoutesOptions> = async (app, { users }) => {
  app.get('/users/current', {
    config: { context: 'none' },
    schema: { tags: ['users'], summary: 'The caller', description: 'The user the access token acts for.', response: { 200: UserView, ...errors } }
  }, async (req) => await users.current(req.actor))

  app.get('/users/rights', {
    config: { right: null },
    schema: {
      tags: ['users'],
      summary: 'Rights of the caller in the context company',
      description: 'The rights the caller holds in the company, as <area>.<subject>.<action> strings; partner.unknown for a company that is neither the caller\'s nor a partner.',
      querystring: UserCompanyQuery,
      response: { 200: Type.Array(Type.String(), { description: 'Right strings', examples: [['entities.systems.view', 'entities.systems.edit']] }), ...errors }
    }
  }, async (req) => users.rights(req.access))

  app.get('/users', {
    config: { right: 'accountNetwork.users.view' },
    schema: { tags: ['users'], summary: 'Find users', description: 'The users of the context company matching every filter given.', querystring: UserFindQuery, response: { 200: Page(UserListItem), ...errors } }
  }, async (req) => await users.find(req.access, req.query))

  app.get('/users/:uid', {
    config: { right: 'accountNetwork.users.view' },
    schema: { tags: ['users'], summary: 'User details', description: 'A user of the context company.', params: UserUidParams, querystring: UserCompanyQuery, response: { 200: UserView, ...errors } }
  }, async (req) => await users.details(req.access, req.params.uid))

  app.put('/users/:uid', {
    config: { right: 'accountNetwork.users.write' },
    schema: { tags: ['users'], summary: 'Change the profile of a user', description: 'Only an administrator may change a profile; answers the user.', params: UserUidParams, querystring: UserCompanyQuery, body: UserEditBody, response: { 200: UserView, ...errors } }
  }, async (req) => await users.edit(req.access, req.params.uid, req.body))

  app.delete('/users/:uid', {
    config: { right: 'accountNetwork.users.write' },
    schema: { tags: ['users'], summary: 'Revoke the access of a user to the company', description: 'The user keeps their account but no longer acts in this company; answers an empty body.', params: UserUidParams, querystring: UserCompanyQuery, response: { 200: Empty, ...errors } }
  }, async (req, reply) => { await users.revoke(req.access, req.params.uid); return await sendEmpty(reply) })
}

export default usersRoutes
