import type { FastifyRequest } from 'fastify'
import { redactUrl } from '../core/security/log-redaction.js'

/**
 * Fastify's request serializer (the `req` of "incoming request" lines) with the secret query parameters of the URL
 * masked: docs/api.md#get-a-token lets clients put passwords and tokens there (core/security/log-redaction.ts).
 */
export function redactedRequest (req: FastifyRequest): Record<string, unknown> {
  return { method: req.method, url: redactUrl(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort }
}
