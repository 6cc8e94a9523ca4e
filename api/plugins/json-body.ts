// AirVantage clients send `Content-Type: application/json` on requests that carry nothing (the Go client's
// operation cancel: a POST with an empty body). Fastify refuses an empty JSON body; here it is read as no body, so
// the route answers as it does without one (a route whose schema needs a body still refuses it: request.invalid).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { FleetError } from '../../core/errors.js'

export default fp(async (app: FastifyInstance) => {
  // Fastify's own parser, with its defaults: a `__proto__` or `constructor.prototype` key is refused.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8')
    if (text.trim() === '') { done(null, undefined); return }
    parseJson(req, text, (err, value) => {
      if (err === null) { done(null, value); return }
      // docs/api.md#using-the-api: the parameters say what to fix; Fastify's message says only "not valid JSON".
      let why = 'not valid JSON'
      try { JSON.parse(text); why = 'a __proto__ or constructor.prototype key is not allowed' } catch {}
      done(new FleetError('request.invalid', ['body', why]), undefined)
    })
  })
}, { name: 'json-body' })
