// Text the store cannot hold is refused before any route sees it (docs/api.md#using-the-api: bad input answers 400,
// never 500). PostgreSQL text never holds U+0000: a NUL byte in a value that reaches a query fails the statement
// (22021), so every string of the request that code may use is checked once, here, rather than in each route.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { FleetError } from '../../core/errors.js'

const NUL = '\u0000'

/**
 * The path (`query.name`, `body.systems.uids[0]`) of the first string or key holding a NUL byte, if any. Walked
 * with an explicit stack, not recursion: a body nested tens of thousands of levels deep (well within the body size
 * limit) would otherwise overflow the call stack and answer 500.
 */
export function nulPath (value: unknown, path: string): string | undefined {
  const stack: Array<[unknown, string]> = [[value, path]]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [v, at] = next
    if (typeof v === 'string') {
      if (v.includes(NUL)) return at
      continue
    }
    if (v === null || typeof v !== 'object' || Buffer.isBuffer(v)) continue
    // Children pushed last-first, so they are visited in order (the first offending path is the one answered).
    const children: Array<[unknown, string]> = []
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) children.push([v[i], `${at}[${i}]`])
    } else {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes(NUL)) return at
        children.push([child, `${at}.${k}`])
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as [unknown, string])
  }
  return undefined
}

/** The credentials of an HTTP Basic header, decoded (the user and password are looked up in the store). */
function basicCredentials (req: FastifyRequest): string | undefined {
  const header = req.headers.authorization
  if (header === undefined || !/^basic /i.test(header)) return undefined
  return Buffer.from(header.slice(6).trim(), 'base64').toString('utf8')
}

/**
 * Refuses (400 request.invalid, naming where) a NUL byte in the path parameters, the query, the parsed body and
 * the Basic credentials, on every route of the instance, the device routes included.
 */
export default fp(async (app: FastifyInstance) => {
  app.addHook('preValidation', async (req) => {
    if (req.routeOptions.url === undefined) return // an unknown route stays 404 not.found, whatever it holds
    const where = nulPath(req.params, 'params') ?? nulPath(req.query, 'query') ?? nulPath(req.body, 'body') ??
      nulPath(basicCredentials(req), 'authorization')
    if (where !== undefined) throw new FleetError('request.invalid', [where, 'a NUL byte (U+0000) is not allowed in text'])
  })
}, { name: 'input-guard' })
