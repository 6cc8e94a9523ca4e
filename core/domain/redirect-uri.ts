// Redirect URIs of the authorization_code grant (docs/api.md#get-a-token; RFC 6749 §3.1.2): absolute, with
// no fragment. http is allowed: clients on a developer's machine redirect to http://localhost.

export function isRedirectUri (uri: string): boolean {
  let u: URL
  try { u = new URL(uri) } catch { return false }
  return (u.protocol === 'https:' || u.protocol === 'http:') && u.hash === '' && !uri.includes('#')
}

/** The redirect URI with the parameters added to its query (RFC 6749 §4.1.2: its own query is kept). */
export function withParams (uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v)
  return u.toString()
}

/**
 * The redirect URI with the parameters in its fragment (RFC 6749 §4.2.2, the implicit grant: a fragment is not sent
 * to servers, so the token stays in the user agent).
 */
export function withFragment (uri: string, params: Record<string, string | undefined>): string {
  const u = new URL(uri)
  const fragment = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined) fragment.set(k, v)
  u.hash = fragment.toString()
  return u.toString()
}
