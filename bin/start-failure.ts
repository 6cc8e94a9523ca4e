// What a user sees when the service cannot start: one line that says what failed and which variable to change,
// never a stack trace (docs/cli.md#command-line). Passwords in URLs are masked, since this line goes to terminals
// and logs.

/** A start failure already explained in one line; the CLI prints its message and exits 1. */
export class StartFailure extends Error {
  constructor (message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StartFailure'
  }
}

/** `postgres://user:secret@host/db` → `postgres://user:***@host/db`; anything that is not a URL is left as is. */
export function maskUrl (raw: string): string {
  try {
    const u = new URL(raw)
    if (u.password === '') return raw
    u.password = '***'
    return u.toString()
  } catch {
    return raw
  }
}

const code = (err: unknown): string | undefined => (err as { code?: unknown } | null)?.code as string | undefined

/** A port that cannot be bound: which variable moves it, or HTTP_HOST when the address is the problem. */
export function portFailure (variable: string, port: number, host: string, err: unknown): Error {
  const c = code(err)
  if (c === 'EADDRINUSE') return new StartFailure(`${variable} ${port} is already in use (another service, or this one started twice): set ${variable} to a free port`, { cause: err })
  if (c === 'EACCES') return new StartFailure(`${variable} ${port} needs privileges this process does not have: set ${variable} to a port above 1023`, { cause: err })
  if (c === 'EADDRNOTAVAIL' || c === 'ENOTFOUND') return new StartFailure(`HTTP_HOST ${host} is not an address of this machine: set HTTP_HOST to one (0.0.0.0 for all)`, { cause: err })
  return err as Error
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'])

/** Opening the store failed: PostgreSQL away, database or role missing, DATA_DIR not writable. */
export function storeFailure (err: unknown, where: { databaseUrl: string | undefined, dataDir: string }): Error {
  const c = code(err)
  const reason = (err as Error).message
  if (where.databaseUrl === undefined) {
    if (c === 'EACCES' || c === 'EROFS' || c === 'ENOTDIR' || c === 'EEXIST') {
      return new StartFailure(`cannot write the embedded store in DATA_DIR ${where.dataDir} (${reason}): set DATA_DIR to a writable directory`, { cause: err })
    }
    return err as Error
  }
  const url = maskUrl(where.databaseUrl)
  if (c !== undefined && UNREACHABLE.has(c)) {
    return new StartFailure(`cannot reach PostgreSQL at ${url} (${reason}): start the server, or set DATABASE_URL to one that runs`, { cause: err })
  }
  // PostgreSQL SQLSTATE: 3D000 invalid_catalog_name, 28000/28P01 authorization and password failures.
  if (c === '3D000') return new StartFailure(`PostgreSQL at ${url}: ${reason}: create it (createdb), or set DATABASE_URL to an existing database`, { cause: err })
  if (c === '28000' || c === '28P01') return new StartFailure(`PostgreSQL at ${url} refused the login (${reason}): check the user and password in DATABASE_URL`, { cause: err })
  return err as Error
}

/** Redis (REDIS_URL) does not answer or refuses the connection at start. */
export function redisFailure (err: unknown, redisUrl: string): Error {
  const c = code(err)
  const reason = (err as Error).message
  if (c !== undefined && UNREACHABLE.has(c)) {
    return new StartFailure(`cannot reach Redis at ${maskUrl(redisUrl)} (${reason}): start the server, or set REDIS_URL to one that runs (unset: counters and jobs in this process)`, { cause: err })
  }
  if (/WRONGPASS|NOAUTH|invalid password|invalid username-password/i.test(reason)) {
    return new StartFailure(`Redis at ${maskUrl(redisUrl)} refused the login (${reason}): check the user and password in REDIS_URL`, { cause: err })
  }
  return err as Error
}
