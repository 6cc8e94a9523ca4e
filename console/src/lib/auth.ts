// The console's sign-in: the service's own OAuth 2, authorization code grant with PKCE (RFC 7636, S256),
// as the public client fleet-console (no secret; docs/api.md#get-a-token). Tokens live in sessionStorage: one sign-in
// per tab, gone when the tab closes.

export const CLIENT_ID = 'fleet-console'
const TOKENS = 'fleet.console.tokens'
const PENDING = 'fleet.console.pending'
/** Refresh this long before the access token expires, so that calls in flight do not meet a 401. */
const EARLY_MS = 60_000

interface Tokens { access: string, refresh: string, expiresAt: number }
interface Pending { verifier: string, state: string, hash: string }
interface TokenAnswer { access_token: string, refresh_token: string, expires_in: number }

/** An OAuth failure at sign-in or refresh: `code` is the RFC 6749 error (errors.ts has its sentence). */
export class SignInError extends Error {
  constructor (readonly code: string, message: string) {
    super(message)
    this.name = 'SignInError'
  }
}

const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')

const random = (n: number): string => base64url(crypto.getRandomValues(new Uint8Array(n)))

/** RFC 7636 §4.2: BASE64URL(SHA-256(ASCII(verifier))). */
async function challengeOf (verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))))
}

/** The console's own address, its redirect URI (the service accepts exactly this one: console-client.ts). */
export const redirectUri = (): string => `${location.origin}${location.pathname}`

function read<T> (key: string): T | undefined {
  const raw = sessionStorage.getItem(key)
  if (raw === null) return undefined
  try { return JSON.parse(raw) as T } catch { return undefined }
}

async function tokenRequest (fields: Record<string, string>): Promise<Tokens> {
  const res = await fetch('/api/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: CLIENT_ID, ...fields }).toString()
  })
  const body = await res.json().catch(() => ({})) as Partial<TokenAnswer> & { error?: string, error_description?: string }
  if (!res.ok || body.access_token === undefined || body.refresh_token === undefined) {
    throw new SignInError(body.error ?? 'internal.error', body.error_description ?? `token request answered ${res.status}`)
  }
  const tokens = { access: body.access_token, refresh: body.refresh_token, expiresAt: Date.now() + (body.expires_in ?? 3600) * 1000 }
  sessionStorage.setItem(TOKENS, JSON.stringify(tokens))
  return tokens
}

/** Goes to the service's sign-in page; the current hash route is where the callback comes back to. */
export async function signIn (): Promise<never> {
  const pending: Pending = { verifier: random(48), state: random(16), hash: location.hash }
  sessionStorage.setItem(PENDING, JSON.stringify(pending))
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirectUri(),
    state: pending.state,
    code_challenge: await challengeOf(pending.verifier),
    code_challenge_method: 'S256'
  })
  location.assign(`/api/oauth/authorize?${q.toString()}`)
  return await new Promise<never>(() => {})
}

/**
 * The callback: when the address carries `code` (or `error`) and the state of the sign-in this tab started, the code
 * is exchanged for tokens and the address is cleaned. Answers false when the address is no callback.
 * @throws SignInError (error sent back by the service, a state of another sign-in, a refused exchange)
 */
export async function completeSignIn (): Promise<boolean> {
  const q = new URLSearchParams(location.search)
  const code = q.get('code')
  const error = q.get('error')
  if (code === null && error === null) return false
  const pending = read<Pending>(PENDING)
  sessionStorage.removeItem(PENDING)
  history.replaceState(null, '', `${location.pathname}${pending?.hash ?? ''}`)
  if (error !== null) throw new SignInError(error, q.get('error_description') ?? error)
  // RFC 6749 §10.12: a callback this tab did not ask for (a forged link) is not exchanged.
  if (pending === undefined || q.get('state') !== pending.state) throw new SignInError('invalid_request', 'the sign-in answer does not match the sign-in this tab started')
  await tokenRequest({ grant_type: 'authorization_code', code: code ?? '', redirect_uri: redirectUri(), code_verifier: pending.verifier })
  return true
}

let refreshing: Promise<Tokens> | undefined

/** A new token pair from the refresh token; concurrent callers share one request (a refresh token is used once). */
export async function refresh (): Promise<string> {
  const tokens = read<Tokens>(TOKENS)
  if (tokens === undefined) throw new SignInError('invalid_grant', 'not signed in')
  refreshing ??= tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh }).finally(() => { refreshing = undefined })
  return (await refreshing).access
}

/** The access token, refreshed first when it is about to expire; undefined when not signed in. */
export async function accessToken (): Promise<string | undefined> {
  const tokens = read<Tokens>(TOKENS)
  if (tokens === undefined) return undefined
  if (tokens.expiresAt - EARLY_MS > Date.now()) return tokens.access
  try { return await refresh() } catch { return undefined }
}

export const signedIn = (): boolean => read<Tokens>(TOKENS) !== undefined

/** Revokes the access token (docs/api.md#get-a-token: /api/oauth/expire) and forgets both tokens. */
export async function signOut (): Promise<void> {
  const tokens = read<Tokens>(TOKENS)
  sessionStorage.removeItem(TOKENS)
  if (tokens === undefined) return
  await fetch('/api/oauth/expire', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ access_token: tokens.access }).toString()
  }).catch(() => undefined)
}

/** Forgets the tokens without revoking (the service refused them already). */
export const forget = (): void => { sessionStorage.removeItem(TOKENS) }
