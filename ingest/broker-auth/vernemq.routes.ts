// VerneMQ's webhooks: auth_on_register, auth_on_publish, auth_on_subscribe and their MQTT 5 forms
// (_m5). VerneMQ names the hook in the `vernemq-hook` header; the hook may also end the path
// (/broker/vernemq/auth_on_register). Answers {"result": "ok"}, {"result": "next"} (a login no device has: the
// next plugin may know it) or {"result": {"error": "not_allowed"}}; a subscription with some filters outside the
// device's own `<login>/` is kept with those refused (qos 128).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { BrokerRights } from './rights.js'
import { objectBody, optionalText, text, type Body } from './body.js'
import { FleetError } from '../../core/errors.js'

const NOT_ALLOWED = { result: { error: 'not_allowed' } }
const OK = { result: 'ok' }

async function register (rights: BrokerRights, body: Body): Promise<unknown> {
  const r = await rights.login(text(body, 'username'), optionalText(body, 'password'), optionalText(body, 'peer_addr'))
  return r.verdict === 'allow' ? OK : r.verdict === 'unknown' ? { result: 'next' } : NOT_ALLOWED
}

function publish (rights: BrokerRights, body: Body): unknown {
  return rights.mayUse(text(body, 'username'), text(body, 'topic'), 'publish') ? OK : NOT_ALLOWED
}

function subscribe (rights: BrokerRights, body: Body): unknown {
  const username = text(body, 'username')
  const topics = body.topics
  if (!Array.isArray(topics) || topics.length === 0) throw new FleetError('request.invalid', ['topics', 'a list of {topic, qos}'])
  const verdicts = topics.map((t: unknown, i) => {
    const entry = objectBody(t)
    const topic = entry.topic
    if (typeof topic !== 'string') throw new FleetError('request.invalid', [`topics[${i}].topic`, 'a string'])
    return { topic, qos: entry.qos, ok: rights.mayUse(username, topic, 'subscribe') }
  })
  if (verdicts.every((v) => v.ok)) return OK
  if (verdicts.every((v) => !v.ok)) return NOT_ALLOWED
  return { result: 'ok', topics: verdicts.map((v) => ({ topic: v.topic, qos: v.ok ? v.qos : 128 })) }
}

const HOOKS: Record<string, (rights: BrokerRights, body: Body) => unknown> = {
  auth_on_register: register,
  auth_on_register_m5: register,
  auth_on_publish: publish,
  auth_on_publish_m5: publish,
  auth_on_subscribe: subscribe,
  auth_on_subscribe_m5: subscribe
}

export default async function vernemqRoutes (app: FastifyInstance, opts: { rights: BrokerRights }): Promise<void> {
  const handle = async (req: FastifyRequest, named: string | undefined): Promise<unknown> => {
    const hook = named ?? req.headers['vernemq-hook']
    const run = typeof hook === 'string' && Object.hasOwn(HOOKS, hook) ? HOOKS[hook] : undefined
    if (run === undefined) throw new FleetError('request.invalid', ['vernemq-hook', Object.keys(HOOKS).join(', ')])
    return await run(opts.rights, objectBody(req.body))
  }
  app.post('/broker/vernemq', async (req) => await handle(req, undefined))
  app.post<{ Params: { hook: string } }>('/broker/vernemq/:hook', async (req) => await handle(req, req.params.hook))
}
