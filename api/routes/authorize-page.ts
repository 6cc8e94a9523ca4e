// The sign-in page of the authorization_code grant (conventions.md §Authentication): a plain form that posts the
// user's e-mail and password back to /api/oauth/authorize with the client's request in hidden fields.

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export interface PageFields {
  response_type: string
  client_id: string
  redirect_uri: string
  state?: string | undefined
  /** PKCE (RFC 7636), carried through the form to the POST. */
  code_challenge?: string | undefined
  code_challenge_method?: string | undefined
}

export function signInPage (fields: PageFields, opts: { clientName: string, username?: string | undefined, error?: string }): string {
  const hidden = Object.entries(fields)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`).join('\n      ')
  const error = opts.error === undefined ? '' : `<p role="alert">${escape(opts.error)}</p>`
  return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Sign in</title></head>
  <body>
    <h1>Sign in to the fleet service</h1>
    <p>${escape(opts.clientName)} asks to act on your behalf.</p>
    ${error}
    <form method="post" action="/api/oauth/authorize">
      ${hidden}
      <label>E-mail <input type="email" name="username" autocomplete="username" required value="${escape(opts.username ?? '')}"></label>
      <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
      <button type="submit">Sign in</button>
    </form>
  </body>
</html>
`
}

export function refusedPage (description: string): string {
  return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>Authorization refused</title></head>
  <body><h1>Authorization refused</h1><p>${escape(description)}</p></body>
</html>
`
}
