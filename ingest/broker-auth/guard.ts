// Who may call the brokers' HTTP endpoints (issue 14): they answer whether a password is right, so only the
// brokers may ask. BROKER_AUTH_SECRET: the header X-Fleet-Broker-Secret (EMQX sends configured headers) or the
// query parameter `secret` (VerneMQ's webhooks send none; the request log masks it); BROKER_AUTH_ALLOW: the
// brokers' addresses. Both set: both must hold.
import { timingSafeEqual } from 'node:crypto'
import { BlockList, isIP } from 'node:net'
import type { FastifyRequest } from 'fastify'

export interface GuardConfig { secret: string | undefined, allow: readonly string[] | undefined }

function blockList (allow: readonly string[]): BlockList {
  const list = new BlockList()
  for (const a of allow) {
    const [ip = '', bits] = a.split('/')
    const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4'
    if (bits === undefined) list.addAddress(ip, type)
    else list.addSubnet(ip, Number(bits), type)
  }
  return list
}

function sameSecret (given: unknown, secret: string): boolean {
  if (typeof given !== 'string') return false
  const x = Buffer.from(given)
  const y = Buffer.from(secret)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** Whether a request comes from an admitted broker; undefined when nothing is configured (the endpoints are off). */
export function createGuard ({ secret, allow }: GuardConfig): ((req: FastifyRequest) => boolean) | undefined {
  if (secret === undefined && allow === undefined) return undefined
  const list = allow === undefined ? undefined : blockList(allow)
  return (req) => {
    if (list !== undefined) {
      const ip = req.socket.remoteAddress ?? ''
      const plain = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip
      const family = isIP(plain)
      if (family === 0 || !list.check(plain, family === 6 ? 'ipv6' : 'ipv4')) return false
    }
    if (secret !== undefined) {
      const query = req.query as Record<string, unknown> | undefined
      if (!sameSecret(req.headers['x-fleet-broker-secret'], secret) && !sameSecret(query?.secret, secret)) return false
    }
    return true
  }
}
