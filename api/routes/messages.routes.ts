import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { MessagesService, NextPage } from '../../core/services/data/messages.service.js'
import { CompanyQuery, errors, uidParams } from '../schemas/common.schema.js'
import { MessageDetailView, MessageParams, MessagesQuery, MessagesView } from '../schemas/data.schema.js'

export interface MessagesRoutesOptions { messages: MessagesService }

const right = 'entities.systems.view'
const SystemUid = uidParams('uid of the system')

/** docs/api.md#using-the-api: `next` is the URL of the following page, on the address the caller used. */
function nextUrl (req: FastifyRequest, systemUid: string, company: string | undefined, next: NextPage): string {
  const q = new URLSearchParams({ from: String(next.from), to: String(next.to), size: String(next.size), cursor: next.cursor })
  if (company !== undefined) q.set('company', company)
  return `${req.protocol}://${req.host}/api/v1/systems/${encodeURIComponent(systemUid)}/messages?${q.toString()}`
}

/** docs/devices.md: the list `{next, messages}` and the detail with its data. */
const messagesRoutes: FastifyPluginAsyncTypebox<MessagesRoutesOptions> = async (app, { messages }) => {
  app.get('/systems/:uid/messages', {
    config: { right },
    schema: { tags: ['messages'], summary: 'Messages of a system', description: 'The messages the system\'s devices sent in [from, to), most recent first; `next` is the URL of the following page.', params: SystemUid, querystring: MessagesQuery, response: { 200: MessagesView, ...errors } }
  }, async (req) => {
    const page = await messages.list(req.access, req.params.uid, req.query)
    return { next: page.next === null ? null : nextUrl(req, req.params.uid, req.query.company, page.next), messages: page.messages }
  })

  app.get('/systems/:uid/messages/:messageUid', {
    config: { right },
    schema: { tags: ['messages'], summary: 'A message with its data', description: 'One message and the data points it carried.', params: MessageParams, querystring: CompanyQuery, response: { 200: MessageDetailView, ...errors } }
  }, async (req) => await messages.detail(req.access, req.params.uid, req.params.messageUid))
}

export default messagesRoutes
