// The OAuth 2 endpoints of docs/api.md#get-a-token, as documented in the OpenAPI document. Every parameter is
// an optional string: the routes read the form body and the query themselves (api/routes/oauth.routes.ts `param`)
// and answer the errors of RFC 6749 §5.2, so these schemas describe without refusing anything the routes accept.
import { Type, type TProperties } from 'typebox'
import { documented } from './common.schema.js'

const text = (description: string, extra: Record<string, unknown> = {}) => Type.Optional(Type.String({ description, ...extra }))

const tokenParams = {
  grant_type: text('password, client_credentials, refresh_token or authorization_code',
    documented({ enum: ['password', 'client_credentials', 'refresh_token', 'authorization_code'] })),
  client_id: text('API client id (or in an HTTP Basic header with the secret)'),
  client_secret: text('API client secret (or in an HTTP Basic header with the id)'),
  username: text('password grant: the user\'s e-mail'),
  password: text('password grant: the user\'s password'),
  refresh_token: text('refresh_token grant: the refresh token (each one is used once; a second use revokes the tokens issued from it)'),
  code: text('authorization_code grant: the code the sign-in page sent to the redirect URI'),
  redirect_uri: text('authorization_code grant: the redirect URI given to /api/oauth/authorize'),
  code_verifier: text('authorization_code grant with PKCE (RFC 7636): the verifier of the code_challenge; a public client (no secret) must use PKCE')
}

const form = <T extends TProperties>(props: T, example: Record<string, string>) => ({
  content: { 'application/x-www-form-urlencoded': { schema: Type.Object(props, { examples: [example] }) } }
})

export const TokenQuery = Type.Object(tokenParams)
export const TokenForm = form(tokenParams, { grant_type: 'password', username: 'admin@example.com', password: 'the password', client_id: 'my-client', client_secret: 'its secret' })

export const TokenView = Type.Object({
  access_token: Type.String({ description: 'Send it as Authorization: Bearer <token>' }),
  token_type: Type.String({ description: 'bearer' }),
  refresh_token: Type.Optional(Type.String({ description: 'Gets a new access token with grant_type=refresh_token' })),
  expires_in: Type.Integer({ description: 'Seconds the access token stays valid' }),
  scope: Type.String({ description: 'Always empty' })
}, {
  description: 'An access token',
  examples: [{ access_token: 'q6m0Xn3Yb0oQyv5cV2sQ3w', token_type: 'bearer', refresh_token: 'Yb0oQyv5cV2sQ3wq6m0Xn3', expires_in: 3600, scope: '' }]
})

/** RFC 6749 §5.2; open, since a malformed request may answer the error body of the API instead. */
export const OAuthErrorView = Type.Object({
  error: Type.String({ description: 'invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type...' }),
  error_description: Type.Optional(Type.String({ description: 'What went wrong' }))
}, { additionalProperties: true, description: 'An OAuth error', examples: [{ error: 'invalid_grant', error_description: 'Wrong e-mail or password' }] })

export const ExpireQuery = Type.Object({
  access_token: text('The token to revoke; without it, the bearer token of the Authorization header is')
})

export const LogoutView = Type.Unsafe<string>({ type: 'string', enum: ['logout.successful'], description: 'The JSON string "logout.successful"' })

const authorizeParams = {
  response_type: text('code (authorization code grant) or token (implicit grant)', documented({ enum: ['code', 'token'] })),
  client_id: text('API client id'),
  redirect_uri: text('Where to send the browser back: one of the client\'s registered redirect URIs'),
  state: text('Opaque value sent back to the redirect URI'),
  code_challenge: text('PKCE (RFC 7636): base64url SHA-256 of the code verifier; required of a public client'),
  code_challenge_method: text('PKCE: S256 (plain is refused)', documented({ enum: ['S256'] }))
}

export const AuthorizeQuery = Type.Object(authorizeParams)
export const AuthorizeForm = form({
  ...authorizeParams,
  username: text('The user\'s e-mail'),
  password: text('The user\'s password')
}, { response_type: 'code', client_id: 'my-client', redirect_uri: 'https://app.example.com/callback', state: 'xyz', username: 'admin@example.com', password: 'the password' })

const html = (description: string) => Type.Unsafe<string>({ description, content: { 'text/html': { schema: { type: 'string' } } } })

export const SignInPage = html('The sign-in page')
export const RefusedPage = html('The client or redirect URI is unknown: the page says why (never redirected)')
export const WrongCredentialsPage = html('The sign-in page again, saying the e-mail or password is wrong')
export const ThrottledPage = html('The sign-in page again, with the wait before the next try (Retry-After)')
export const Redirect = Type.Unsafe<undefined>({
  type: 'null',
  description: 'Back to the redirect URI: with code and state in the query (response_type=code), or access_token, token_type, expires_in and state in the fragment (response_type=token)',
  headers: { location: { type: 'string', description: 'The redirect URI with the result' } }
})
