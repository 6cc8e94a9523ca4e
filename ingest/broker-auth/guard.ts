// Who may call the brokers' HTTP endpoints: they answer whether a password is right, so only the
// brokers may ask. BROKER_AUTH_SECRET: the header X-Fleet-Broker-Secret (EMQX sends configured headers) or the
// query parameter `secret` (VerneMQ's webhooks send none; the request log masks it); BROKER_AUTH_ALLOW: the
// brokers' addresses. Both set: both must hold.
import { timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { isTrustedProxy } from '../../core/domain/trusted-proxies.js'

export interface GuardConfig { secret: string | undefined, allow: readonly string[] | undefined }

function sameSecret (given: unknown, secret: string): boolean {
  if (typeof given !== 'string') return false
  const x = Buffer.from(given)
  const y = Buffer.from(secret)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** Whether a request comes from an admitted broker; undefined when nothing is configured (the endpoints are off). */
export function createGuard ({ secret, allow }: GuardConfig): ((req: FastifyRequest) => boolean) | undefined {
  if (secret === undefined && allow === undefined) return undefined
  return (req) => {
    // The same address-and-range check as TRUST_PROXY's, on the connection's own address.
    if (allow !== undefined && !isTrustedProxy(req.socket.remoteAddress, allow)) return false
    if (secret !== undefined) {
      const query = req.query as Record<string, unknown> | undefined
      if (!sameSecret(req.headers['x-fleet-broker-secret'], secret) && !sameSecret(query?.secret, secret)) return false
    }
    return true
  }
}
