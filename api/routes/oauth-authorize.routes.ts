import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AuthorizeRefused, OAuthError, type AuthService } from '../../core/services/auth.service.js'
import type { RateCounter } from '../../core/ports.js'
import { withParams } from '../../core/domain/redirect-uri.js'
import { enforceRate } from '../plugins/auth.js'
import { refusedPage, signInPage, type PageFields } from './authorize-page.js'
import { param } from './oauth.routes.js'

export interface AuthorizeRoutesOptions { auth: AuthService, rateCounter: RateCounter, ratePerSecond: number }

/**
 * `/api/oauth/authorize` (conventions.md §Authentication; RFC 6749 §4.1): GET shows the sign-in form, POST checks
 * the credentials and redirects to the client with `code` and `state`. A bad client or redirect URI is answered
 * here (400), never redirected; an unsupported response_type is sent to the redirect URI as `error`.
 */
export default async function authorizeRoutes (app: FastifyInstance, { auth, rateCounter, ratePerSecond }: AuthorizeRoutesOptions): Promise<void> {
  const request = (req: FastifyRequest) => ({
    responseType: param(req, 'response_type'),
    clientId: param(req, 'client_id'),
    redirectUri: param(req, 'redirect_uri'),
    state: param(req, 'state')
  })
  const html = (reply: FastifyReply, status: number, body: string): FastifyReply =>
    reply.status(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').header('x-frame-options', 'DENY').send(body)

  /** Errors common to both steps; answers undefined when `err` is not one of them. */
  const refused = (reply: FastifyReply, err: unknown, redirectUri: string | undefined, state: string | undefined): FastifyReply | undefined => {
    if (err instanceof AuthorizeRefused) return html(reply, 400, refusedPage(err.description))
    if (err instanceof OAuthError && err.error === 'unsupported_response_type') {
      // The URI was checked against the client's before this error is raised; left out, it is answered here.
      if (redirectUri === undefined) return html(reply, 400, refusedPage(err.description))
      return reply.redirect(withParams(redirectUri, { error: err.error, error_description: err.description, state }), 302)
    }
    return undefined
  }

  const show = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const r = request(req)
    try {
      const target = await auth.authorizeTarget(r)
      const fields: PageFields = { response_type: 'code', client_id: target.clientId, redirect_uri: target.redirectUri, state: r.state }
      return html(reply, 200, signInPage(fields, { clientName: target.clientId }))
    } catch (err) {
      const answered = refused(reply, err, r.redirectUri, r.state)
      if (answered === undefined) throw err
      return answered
    }
  }

  const signIn = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    await enforceRate(rateCounter, `ip:${req.ip}`, ratePerSecond)
    const r = request(req)
    const username = param(req, 'username')
    try {
      const { code, redirectUri } = await auth.authorize({ ...r, username, password: param(req, 'password') })
      return await reply.header('cache-control', 'no-store').redirect(withParams(redirectUri, { code, state: r.state }), 302)
    } catch (err) {
      const answered = refused(reply, err, r.redirectUri, r.state)
      if (answered !== undefined) return answered
      if (!(err instanceof OAuthError)) throw err
      const fields: PageFields = { response_type: r.responseType ?? '', client_id: r.clientId ?? '', redirect_uri: r.redirectUri ?? '', state: r.state }
      return html(reply, 401, signInPage(fields, { clientName: r.clientId ?? '', username, error: 'Wrong e-mail or password.' }))
    }
  }

  const options = { config: { public: true }, schema: { tags: ['oauth'], summary: 'Authorization code grant: sign in and get a code' } }
  app.get('/authorize', options, show)
  app.post('/authorize', options, signIn)
}
