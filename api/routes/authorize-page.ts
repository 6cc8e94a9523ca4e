// The sign-in page of the authorization_code grant (docs/api.md#get-a-token): a form that posts the user's e-mail and
// password back to /api/oauth/authorize with the client's request in hidden fields. It looks like the console (its
// colours and card), and speaks of signing in when the client is the console itself: "asks to act on your behalf"
// is consent wording, which only another application warrants.
import { createHash } from 'node:crypto'
import { CONSOLE_CLIENT_ID } from '../../core/domain/console-client.js'

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

// The console's palette (console/src/styles.css), inline so that the page needs nothing else from the service.
const STYLE = `
:root { --accent: #2b6cb0; --accent-dark: #2c5282; --text: #1a202c; --muted: #4a5568; --line: #e2e8f0; --danger: #c53030; }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 1rem; background: #f7f9fc; color: var(--text);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { width: min(24rem, 100%); background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 1.75rem;
  box-shadow: 0 8px 30px rgb(0 0 0 / 8%); }
.brand { margin: 0 0 1rem; font-weight: 700; color: var(--accent-dark); }
h1 { margin: 0 0 0.35rem; font-size: 1.4rem; }
p { margin: 0 0 1rem; color: var(--muted); }
form { display: flex; flex-direction: column; gap: 0.9rem; }
label { display: flex; flex-direction: column; gap: 0.3rem; font-weight: 600; }
input { font: inherit; padding: 0.55rem 0.7rem; border: 1px solid #cbd5e0; border-radius: 6px; }
input:focus-visible, button:focus-visible { outline: 3px solid #90cdf4; outline-offset: 2px; }
button { font: inherit; font-weight: 600; padding: 0.6rem; border: 1px solid var(--accent); border-radius: 6px;
  background: var(--accent); color: #fff; cursor: pointer; }
button:hover { background: var(--accent-dark); }
[role=alert] { color: var(--danger); background: #fff5f5; border: 1px solid #feb2b2; border-radius: 6px; padding: 0.5rem 0.75rem; }
`

/** The page's one inline style, for a Content-Security-Policy: `style-src 'sha256-...'`. */
export const PAGE_STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`

function page (title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><style>${STYLE}</style></head>
  <body>
    <main>
      <p class="brand">Fleet</p>
      ${body}
    </main>
  </body>
</html>
`
}

export function signInPage (fields: PageFields, opts: { clientName: string, username?: string | undefined, error?: string }): string {
  const hidden = Object.entries(fields)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`).join('\n        ')
  const error = opts.error === undefined ? '' : `<p role="alert">${escape(opts.error)}</p>`
  const words = fields.client_id === CONSOLE_CLIENT_ID
    ? '<h1>Sign in to the console</h1>\n      <p>With your e-mail and password.</p>'
    : `<h1>Sign in to the fleet service</h1>\n      <p>${escape(opts.clientName)} asks to act on your behalf.</p>`
  return page('Sign in', `${words}
      ${error}
      <form method="post" action="/api/oauth/authorize">
        ${hidden}
        <label>E-mail <input type="email" name="username" autocomplete="username" required value="${escape(opts.username ?? '')}"></label>
        <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
        <button type="submit">Sign in</button>
      </form>`)
}

export function refusedPage (description: string): string {
  return page('Authorization refused', `<h1>Authorization refused</h1>
      <p>${escape(description)}</p>`)
}
