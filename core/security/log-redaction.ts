// Secrets never reach the log (docs/configuration.md): docs/api.md#get-a-token lets clients send
// passwords, client secrets, tokens, authorization codes and PKCE verifiers (RFC 7636) in the query string, and the request log writes URLs.
// Three layers: the request serializer writes URLs with those parameters masked (redactUrl), the logger masks the
// fields that hold them (REDACTED_PATHS), and every finished line is scrubbed once more (redactLine) for what is
// left: a URL or a header inside an error message, say.

export const REDACTED = '[redacted]'

/** Query and form parameters whose values are secrets (docs/api.md#get-a-token; RFC 6749 §4). */
export const SECRET_PARAMS = ['password', 'client_secret', 'access_token', 'refresh_token', 'id_token', 'code', 'code_verifier', 'token', 'secret'] as const

const FIELDS = ['password', 'client_secret', 'clientSecret', 'access_token', 'accessToken', 'refresh_token', 'refreshToken', 'secret', 'authorization', 'cookie']

/** Fields masked wherever a log call puts them, up to two levels deep (pino `redact` paths). */
export const REDACTED_PATHS = [
  ...FIELDS, ...FIELDS.map((f) => `*.${f}`), ...FIELDS.map((f) => `*.*.${f}`),
  'req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie'
]

const SECRET_SET = new Set<string>(SECRET_PARAMS)

// A package download's token is its path's last segment (docs/packages.md#downloads): whoever reads it can download.
const DOWNLOAD_TOKEN = /(\/device\/packages\/)[^/?#\s"'\\]+/g

/** The URL with the values of its secret query parameters (and a download token) masked; the rest as it came. */
export function redactUrl (url: string): string {
  url = url.replace(DOWNLOAD_TOKEN, `$1${REDACTED}`)
  const q = url.indexOf('?')
  if (q < 0) return url
  const query = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=')
    if (eq < 0) return pair
    let name = pair.slice(0, eq)
    try { name = decodeURIComponent(name.replaceAll('+', ' ')) } catch {}
    return SECRET_SET.has(name.toLowerCase()) ? `${pair.slice(0, eq)}=${REDACTED}` : pair
  })
  return `${url.slice(0, q)}?${query.join('&')}`
}

const NAMES = SECRET_PARAMS.join('|')
// name=value inside any text (URLs, form bodies): the value runs to the next separator. The name must follow a
// separator, so that `grant_type=password` keeps its value.
const PARAM_VALUE = new RegExp(`(^|[?&;#\\s"'])((?:${NAMES})=)[^&\\s"'#\\\\]+`, 'gi')
// "name":"value" inside a JSON string (escaped quotes), e.g. a request body quoted in an error message.
const ESCAPED_JSON_VALUE = new RegExp(`(\\\\"(?:${NAMES}|clientSecret|accessToken|refreshToken)\\\\"\\s*:\\s*\\\\")(?:[^"\\\\]|\\\\[^"])*`, 'gi')
// HTTP Basic credentials (API clients, devices: docs/devices.md) and bearer tokens.
const AUTH_SCHEME = /\b(Basic|Bearer)(\s+)[A-Za-z0-9._~+/-]+=*/gi

/**
 * One finished log line with every secret-looking value masked. The replacement holds no quote or backslash, and
 * every pattern stays inside a JSON string, so a JSON line stays valid JSON.
 */
export function redactLine (line: string): string {
  return line
    .replace(PARAM_VALUE, `$1$2${REDACTED}`)
    .replace(ESCAPED_JSON_VALUE, `$1${REDACTED}`)
    .replace(AUTH_SCHEME, `$1$2${REDACTED}`)
    .replace(DOWNLOAD_TOKEN, `$1${REDACTED}`)
}
