import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { OAuthError, type AuthService, type TokenRequest } from '../../core/services/auth.service.js'
import type { RateCounter } from '../../core/ports/store.js'
import { bearerToken, enforceRate } from '../plugins/auth.js'
import { errors } from '../schemas/common.schema.js'
import { ExpireQuery, LogoutView, OAuthErrorView, TokenForm, TokenQuery, TokenView } from '../schemas/oauth.schema.js'

export interface OAuthRoutesOptions { auth: AuthService, rateCounter: RateCounter, ratePerSecond: number }

type Params = Record<string, unknown>

/** A non-empty parameter of the form body, else of the query (docs/api.md#get-a-token: both are read). */
export function param (req: FastifyRequest, name: string): string | undefined {
  for (const source of [req.body, req.query] as Params[]) {
    const v = source?.[name]
    if (typeof v === 'string' && v !== '') return v
  }
  return undefined
}

/** Client credentials in an HTTP Basic header, in the form body or in the query (docs/api.md#get-a-token). */
function tokenRequest (req: FastifyRequest): TokenRequest {
  let clientId = param(req, 'client_id')
  let clientSecret = param(req, 'client_secret')
  const header = req.headers.authorization
  if (header !== undefined && /^basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8')
    const at = decoded.indexOf(':')
    if (at > 0) {
      clientId = decodeURIComponent(decoded.slice(0, at))
      clientSecret = decodeURIComponent(decoded.slice(at + 1))
    }
  }
  return {
    address: req.ip,
    grantType: param(req, 'grant_type'),
    clientId,
    clientSecret,
    username: param(req, 'username'),
    password: param(req, 'password'),
    refreshToken: param(req, 'refresh_token'),
    code: param(req, 'code'),
    redirectUri: param(req, 'redirect_uri'),
    codeVerifier: param(req, 'code_verifier')
  }
}

/** `/api/oauth/token` (GET and POST) and `/api/oauth/expire`; errors follow RFC 6749 `{error, error_description}`. */
export default async function oauthRoutes (app: FastifyInstance, { auth, rateCounter, ratePerSecond }: OAuthRoutesOptions): Promise<void> {
  const token = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    await enforceRate(rateCounter, `ip:${req.ip}`, ratePerSecond)
    try {
      const issued = await auth.token(tokenRequest(req))
      return await reply.header('cache-control', 'no-store').send(issued)
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err
      return await reply.status(err.status).send({ error: err.error, error_description: err.description })
    }
  }
  const expire = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    // The token named in the query is the one to revoke (docs/api.md#get-a-token: expire?access_token=<t>);
    // a client that also sends its own bearer header must not log itself out with someone else's stale token.
    const t = param(req, 'access_token') ?? bearerToken(req)
    if (t !== undefined) await auth.expire(t)
    return await reply.type('application/json').send(JSON.stringify('logout.successful'))
  }
  // The OpenAPI document (api/schemas/oauth.schema.ts): open routes (security: []), every parameter optional.
  const options = { config: { public: true }, schema: { tags: ['oauth'], security: [] } }
  const tokenDoc = {
    ...options.schema,
    summary: 'Get an access token',
    description: 'OAuth 2 token endpoint: grant_type password (e-mail and password), client_credentials (acts as the user owning the API client), refresh_token or authorization_code. Client id and secret in an HTTP Basic header, the form or the query. Parameters in the query (GET) or a form body (POST).',
    response: { 200: TokenView, 400: OAuthErrorView, 401: OAuthErrorView, 429: errors[429], 503: errors[503] }
  }
  const expireDoc = {
    ...options.schema,
    summary: 'Log out',
    description: 'Revokes the access token named by access_token (query or form), or else the bearer token of the Authorization header.',
    querystring: ExpireQuery,
    response: { 200: LogoutView }
  }
  app.get('/token', { ...options, schema: { ...tokenDoc, querystring: TokenQuery } }, token)
  app.post('/token', { ...options, schema: { ...tokenDoc, body: TokenForm } }, token)
  app.get('/expire', { ...options, schema: expireDoc }, expire)
  app.post('/expire', { ...options, schema: expireDoc }, expire)
}
