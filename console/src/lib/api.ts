// The console's client of the fleet API: JSON in and out, query objects (arrays joined by commas:
// docs/api.md#using-the-api), multipart (FormData) or raw (Blob) for files, the bearer token of the session, one refresh on 401, and
// every error thrown as an ApiError carrying its sentence (errors.ts).
import { errorText } from './errors.js'

export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number>
export type Query = Record<string, QueryValue>

/** An answer of the service that is not a success: `code` and `params` as on the wire, `sentence` for people. */
export class ApiError extends Error {
  readonly sentence: string
  constructor (readonly status: number, readonly code: string, readonly params: readonly string[] = []) {
    const sentence = errorText(code, params)
    super(sentence)
    this.name = 'ApiError'
    this.sentence = sentence
  }
}

export interface ApiClientOptions {
  /** The current access token (refreshed when about to expire), undefined when signed out. */
  token: () => Promise<string | undefined>
  /** A new access token after a 401; throws when the session cannot go on. */
  refresh: () => Promise<string>
  /** The context company (docs/console.md) added as `company` to /api/v1 and /api/v2 calls; undefined: the user's own. */
  company: () => string | undefined
  /** Called when the session has ended (refresh refused): the shell signs in again. */
  onSignedOut: () => void
}

export function queryString (query: Query = {}): string {
  const q = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue
    q.set(key, Array.isArray(value) ? value.join(',') : String(value))
  }
  const s = q.toString()
  return s === '' ? '' : `?${s}`
}

async function failure (res: Response): Promise<ApiError> {
  const body = await res.json().catch(() => undefined) as { error?: unknown, errorParameters?: unknown } | undefined
  const code = typeof body?.error === 'string' ? body.error : res.status === 404 ? 'not.found' : 'internal.error'
  const params = Array.isArray(body?.errorParameters) ? body.errorParameters.map(String) : []
  return new ApiError(res.status, code, params)
}

export class ApiClient {
  constructor (private readonly opts: ApiClientOptions) {}

  async get<T> (path: string, query?: Query): Promise<T> { return await this.json<T>('GET', path, undefined, query) }
  async post<T> (path: string, body?: unknown, query?: Query): Promise<T> { return await this.json<T>('POST', path, body, query) }
  async put<T> (path: string, body?: unknown, query?: Query): Promise<T> { return await this.json<T>('PUT', path, body, query) }
  async delete<T> (path: string, query?: Query): Promise<T> { return await this.json<T>('DELETE', path, undefined, query) }

  /** A file answer (an export, a picture) as a Blob. */
  async blob (path: string, query?: Query): Promise<Blob> {
    return await (await this.send('GET', path, undefined, query)).blob()
  }

  /** The URL of a call with the company added, for what is not fetched by this client (links, the stream). */
  url (path: string, query: Query = {}): string {
    const company = this.opts.company()
    // The v2 alert rules and alerts take the context company as /api/v1 does (docs/alerts.md#rules).
    const scoped = path.startsWith('/api/v1/') || path.startsWith('/api/v2/')
    const withCompany = scoped && company !== undefined && query.company === undefined ? { ...query, company } : query
    return `${path}${queryString(withCompany)}`
  }

  private async json<T> (method: string, path: string, body: unknown, query?: Query): Promise<T> {
    const res = await this.send(method, path, body, query)
    const text = await res.text()
    if (text === '') return undefined as T
    try { return JSON.parse(text) as T } catch { return text as T }
  }

  private async send (method: string, path: string, body: unknown, query?: Query): Promise<Response> {
    const url = this.url(path, query)
    const init = (token: string | undefined): RequestInit => {
      const headers: Record<string, string> = { accept: 'application/json' }
      if (token !== undefined) headers.authorization = `Bearer ${token}`
      if (body === undefined || body instanceof FormData) return { method, headers, body: body as FormData | undefined }
      // A file sent as the raw body (the company picture: docs/console.md), with its own type.
      if (body instanceof Blob) return { method, headers: { ...headers, 'content-type': body.type || 'application/octet-stream' }, body }
      headers['content-type'] = 'application/json'
      return { method, headers, body: JSON.stringify(body) }
    }
    let res = await fetch(url, init(await this.opts.token()))
    if (res.status === 401) {
      let token: string
      try { token = await this.opts.refresh() } catch {
        this.opts.onSignedOut()
        throw new ApiError(401, 'invalid_token')
      }
      res = await fetch(url, init(token))
    }
    if (!res.ok) throw await failure(res)
    return res
  }
}

/** The sentence of any error: an ApiError's, else its message. */
export const sentenceOf = (err: unknown): string =>
  err instanceof ApiError ? err.sentence : err instanceof Error ? err.message : String(err)
