import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { consoleBundle } from './bundle.js'
import { consoleCsp, INDEX_HTML } from './index-page.js'
import { requestConsoleBase, type ConsoleAddressConfig } from './console-base.js'
import { pageHeaders } from '../page-headers.js'

/**
 * The web console under /console/: index.html, app.js and app.css (with their source maps). Open routes:
 * the console signs in itself (OAuth 2 code grant with PKCE, client fleet-console) and calls /api/v1 with its token.
 */
export default async function consoleRoutes (app: FastifyInstance, address: ConsoleAddressConfig): Promise<void> {
  const secure = (reply: FastifyReply, req: FastifyRequest): FastifyReply =>
    pageHeaders(reply).header('content-security-policy', consoleCsp(requestConsoleBase(req, address)))

  const doc = { schema: { hide: true }, config: { public: true } }
  app.get('/console', doc, async (_req, reply) => await reply.redirect('/console/', 301))
  app.get('/console/', doc, async (req, reply) =>
    await secure(reply, req).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(INDEX_HTML))
  app.get<{ Params: { file: string } }>('/console/:file', doc, async (req, reply) => {
    const file = (await consoleBundle()).files.get(req.params.file)
    if (file === undefined) return await reply.callNotFound()
    return await secure(reply, req).type(file.type).header('cache-control', 'no-cache').send(file.body)
  })
}
