import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AuthorizeRefused, ClientRedirectError, OAuthError, type AuthService } from '../../core/services/auth.service.js'
import { consoleRedirectUri } from '../../core/domain/console-client.js'
import { requestConsoleBase } from '../console/console-base.js'
import type { RateCounter } from '../../core/ports/store.js'
import { isFleetError } from '../../core/errors.js'
import { withFragment, withParams } from '../../core/domain/redirect-uri.js'
import { enforceRate } from '../plugins/auth.js'
import { pageHeaders, signInCsp } from '../page-headers.js'
import { refusedPage, signInPage, type PageFields } from './authorize-page.js'
import { param } from './oauth.routes.js'
import { errors } from '../schemas/common.schema.js'
import { AuthorizeForm, AuthorizeQuery, Redirect, RefusedPage, SignInPage, ThrottledPage, WrongCredentialsPage } from '../schemas/oauth.schema.js'

export interface AuthorizeRoutesOptions {
  auth: AuthService
  rateCounter: RateCounter
  ratePerSecond: number
  /** PUBLIC_URL: the service's address for its users; absent, the listener's (console-client.ts). */
  publicUrl?: string | undefined
  /** HTTP_HOST: a name the listener answers to. */
  httpHost: string
}

const pkceFields = (r: { codeChallenge: string | undefined, codeChallengeMethod: string | undefined }) =>
  ({ code_challenge: r.codeChallenge, code_challenge_method: r.codeChallengeMethod })

/** A page of the sign-in flow: never cached, its CSP letting the form post and go on to `redirectUri` only. */
const html = (reply: FastifyReply, status: number, body: string, redirectUri?: string): FastifyReply =>
  pageHeaders(reply).status(status).type('text/html; charset=utf-8').header('cache-control', 'no-store')
    .header('content-security-policy', signInCsp(redirectUri)).send(body)

/** Errors common to both steps; answers undefined when `err` is not one of them. */
function refused (reply: FastifyReply, err: unknown, redirectUri: string | undefined, state: string | undefined): FastifyReply | undefined {
  if (err instanceof AuthorizeRefused) return html(reply, 400, refusedPage(err.description))
  if (err instanceof ClientRedirectError) {
    // The URI was checked against the client's before this error is raised; left out, it is answered here.
    if (redirectUri === undefined) return html(reply, 400, refusedPage(err.description))
    return reply.redirect(withParams(redirectUri, { error: err.error, error_description: err.description, state }), 302)
  }
  return undefined
}

/**
 * `/api/oauth/authorize` (docs/api.md#get-a-token; RFC 6749 §4.1): GET shows the sign-in form, POST checks
 * the credentials and redirects to the client with `code` and `state` in the query, or, for the implicit grant
 * (response_type=token, §4.2), with `access_token`, `token_type`, `expires_in` and `state` in the fragment. A bad
 * client or redirect URI is answered here (400), never redirected; an unsupported response_type is sent to the
 * redirect URI as `error`.
 */
export default async function authorizeRoutes (app: FastifyInstance, { auth, rateCounter, ratePerSecond, publicUrl, httpHost }: AuthorizeRoutesOptions): Promise<void> {
  const consoleUri = (req: FastifyRequest): string | undefined => {
    const base = requestConsoleBase(req, { publicUrl, httpHost })
    return base === undefined ? undefined : consoleRedirectUri(base)
  }
  const request = (req: FastifyRequest) => ({
    responseType: param(req, 'response_type'),
    clientId: param(req, 'client_id'),
    redirectUri: param(req, 'redirect_uri'),
    state: param(req, 'state'),
    codeChallenge: param(req, 'code_challenge'),
    codeChallengeMethod: param(req, 'code_challenge_method'),
    consoleRedirectUri: consoleUri(req)
  })
  const show = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const r = request(req)
    try {
      const target = await auth.authorizeTarget(r)
      const fields: PageFields = {
        response_type: target.responseType, client_id: target.clientId, redirect_uri: target.redirectUri, state: r.state, ...pkceFields(r)
      }
      return html(reply, 200, signInPage(fields, { clientName: target.clientId }), target.redirectUri)
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
      const done = await auth.authorize({ ...r, address: req.ip, username, password: param(req, 'password') })
      const to = 'code' in done
        ? withParams(done.redirectUri, { code: done.code, state: r.state })
        : withFragment(done.redirectUri, { ...done.token, expires_in: String(done.token.expires_in), state: r.state })
      return await reply.header('cache-control', 'no-store').redirect(to, 302)
    } catch (err) {
      const answered = refused(reply, err, r.redirectUri, r.state)
      if (answered !== undefined) return answered
      const fields: PageFields = { response_type: r.responseType ?? '', client_id: r.clientId ?? '', redirect_uri: r.redirectUri ?? '', state: r.state, ...pkceFields(r) }
      const page = (status: number, error: string): FastifyReply =>
        html(reply, status, signInPage(fields, { clientName: r.clientId ?? '', username, error }), r.redirectUri ?? r.consoleRedirectUri)
      // login-throttle.ts: during a wait the form is shown again with the wait, and Retry-After
      // (docs/api.md#using-the-api).
      const retryAfterS = (err as { retryAfterS?: unknown }).retryAfterS
      if (isFleetError(err) && err.code === 'rate.limit.exceeded' && typeof retryAfterS === 'number') {
        return page(429, `Too many failed sign-ins: try again in ${retryAfterS} s.`).header('retry-after', String(retryAfterS))
      }
      if (!(err instanceof OAuthError)) throw err
      return page(401, 'Wrong e-mail or password.')
    }
  }

  // The OpenAPI document (api/schemas/oauth.schema.ts): open routes (security: []), HTML answers.
  const doc = { tags: ['oauth'], security: [] }
  app.get('/authorize', {
    config: { public: true },
    schema: {
      ...doc,
      summary: 'Sign-in page of the authorization code and implicit grants',
      description: 'Shows the form where the user signs in to let the client act on their behalf.',
      querystring: AuthorizeQuery,
      response: { 200: SignInPage, 400: RefusedPage }
    }
  }, show)
  app.post('/authorize', {
    config: { public: true },
    schema: {
      ...doc,
      summary: 'Sign in and go back to the client',
      description: 'Checks the e-mail and password posted by the sign-in page and redirects to the client: a code to exchange at /api/oauth/token, or (response_type=token) the access token in the fragment.',
      body: AuthorizeForm,
      response: { 302: Redirect, 400: RefusedPage, 401: WrongCredentialsPage, 429: ThrottledPage, 503: errors[503] }
    }
  }, signIn)
}
