// The web console (issue 15) signs in with the service's own OAuth 2: the authorization_code grant with PKCE, as a
// public client (no secret: a page cannot keep one). The client exists in every store (bootstrap.service.ts).

export const CONSOLE_CLIENT_ID = 'fleet-console'
export const CONSOLE_PATH = '/console/'

/**
 * The console client's only redirect URI: the console's own address. With PUBLIC_URL (the address users reach the
 * service at, e.g. behind a TLS proxy) it is `<PUBLIC_URL>/console/`; without it, the origin the authorize request
 * came to (its Host header) followed by `/console/`. It is computed per request rather than stored, so the same
 * store serves the console under every address it is reached at.
 */
export function consoleRedirectUri (publicUrl: string | undefined, requestOrigin: string): string {
  const base = publicUrl ?? requestOrigin
  // Relative: a PUBLIC_URL with a path (a proxy serving the service under /fleet/) keeps it.
  return new URL(CONSOLE_PATH.slice(1), base.endsWith('/') ? base : `${base}/`).toString()
}
