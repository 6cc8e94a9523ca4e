// The headers of the HTML pages the service serves itself (the sign-in page, Swagger UI, the console): no page of
// another site may frame them (a sign-in form under a transparent frame is clickjacking), no answer is sniffed into
// another type, and a page's address (the sign-in's state and code_challenge) is not sent on as a Referer.
import type { FastifyReply } from 'fastify'
import { PAGE_STYLE_SOURCE } from './routes/authorize-page.js'

export function pageHeaders (reply: FastifyReply): FastifyReply {
  return reply.header('x-frame-options', 'DENY').header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer')
}

/**
 * The sign-in page's CSP: its one style, no script, the form posting to this origin only, whose answer redirects to
 * the client's redirect URI (browsers hold a form's redirects to form-action too).
 */
export function signInCsp (redirectUri: string | undefined): string {
  let to = ''
  try {
    const u = new URL(redirectUri ?? '')
    if (u.protocol === 'http:' || u.protocol === 'https:') to = ` ${u.origin}` // an origin: no space, quote or semicolon
  } catch {}
  return `default-src 'none'; style-src ${PAGE_STYLE_SOURCE}; form-action 'self'${to}; frame-ancestors 'none'; base-uri 'none'`
}

/**
 * Swagger UI's own CSP (@fastify/swagger-ui staticCSP, with the hashes of its inline scripts), framed by no one and
 * without upgrade-insecure-requests, which would send the page's own files to https on a plain-HTTP listener.
 */
export function swaggerCsp (header: string | number | string[]): string {
  return String(header).replace("frame-ancestors 'self'", "frame-ancestors 'none'").replace(/\s*upgrade-insecure-requests;?/, '')
}
