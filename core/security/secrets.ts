import { createHash, randomBytes, randomFillSync, randomUUID, scrypt, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'

const scryptAsync = promisify(scrypt) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>

// docs/api.md#get-a-token: passwords with a slow salted hash. scrypt N=2^cost, r=8, p=1; the default cost 15
// takes about 50 ms and 32 MiB. PASSWORD_HASH_COST (core/config.ts) lowers it where sign-ins must be cheap (the test
// stacks) or raises it; each hash records its own N, so hashes of every cost keep verifying.
export const DEFAULT_PASSWORD_HASH_COST = 15
const R = 8
const P = 1
const KEY_LEN = 32

/** Encodes as `scrypt$N$r$p$salt$hash` (base64url) so that the cost can change without a migration. */
export async function hashPassword (password: string, cost = DEFAULT_PASSWORD_HASH_COST): Promise<string> {
  const N = 2 ** cost
  const salt = randomBytes(16)
  const key = await scryptAsync(password, salt, KEY_LEN, { N, r: R, p: P, maxmem: 256 * N * R })
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/**
 * A hash of hashPassword's cost that no password matches in practice (an all-zero key): unknown accounts are checked
 * against it, so that a wrong password costs the same time for them as for existing ones.
 */
export function dummyPasswordHash (cost = DEFAULT_PASSWORD_HASH_COST): string {
  return ['scrypt', 2 ** cost, R, P, Buffer.alloc(16).toString('base64url'), Buffer.alloc(KEY_LEN).toString('base64url')].join('$')
}

export async function verifyPassword (password: string, encoded: string | null): Promise<boolean> {
  const parts = encoded?.split('$') ?? []
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string]
  const expected = Buffer.from(hash, 'base64url')
  const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length,
    { N: Number(n), r: Number(r), p: Number(p), maxmem: 256 * 1024 * 1024 })
  return timingSafeEqual(key, expected)
}

/** A random secret for tokens, client secrets and generated passwords. */
export function randomSecret (bytes = 24): string {
  return randomBytes(bytes).toString('base64url')
}

/** Tokens are stored only as this hash (docs/api.md#get-a-token). */
export function sha256 (s: string): string {
  return createHash('sha256').update(s).digest('hex')
}

/** Resource uids: 32 hex characters, the shape AirVantage clients expect. */
export function newUid (): string {
  return randomUUID().replaceAll('-', '')
}

/**
 * A uid of the same shape whose first 12 hex characters are the time in ms: for rows written by the thousand a
 * second (device messages), so that the indexes holding them grow at their right edge instead of at random places
 * (a random key touches a different index page at every insert: more pages dirty, written and logged in full after
 * each checkpoint, as the index outgrows memory). The other 80 bits are random, so uids stay unguessable enough and
 * unique across processes.
 */
export function newTimeOrderedUid (now = Date.now()): string {
  if (randomAt === RANDOM_POOL.length) { randomFillSync(RANDOM_POOL); randomAt = 0 }
  const random = RANDOM_POOL.toString('hex', randomAt, randomAt + RANDOM_BYTES)
  randomAt += RANDOM_BYTES
  return now.toString(16).padStart(12, '0').slice(-12) + random
}

// The random part of time-ordered uids, drawn from a pool filled 512 uids at a time: one uid per device message,
// and a randomUUID() with its dashes replaced each was 2 % of the service's CPU in bench ingest.
const RANDOM_BYTES = 10
const RANDOM_POOL = Buffer.alloc(RANDOM_BYTES * 512)
let randomAt = RANDOM_POOL.length
