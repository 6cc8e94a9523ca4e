// EMQX's HTTP authenticator and HTTP authorizer. Configure EMQX to POST JSON:
//   authn: {"username": "${username}", "password": "${password}", "clientid": "${clientid}", "peerhost": "${peerhost}"}
//   authz: {"username": "${username}", "clientid": "${clientid}", "topic": "${topic}", "action": "${action}"}
// Both answer 200 {"result": "allow" | "deny" | "ignore"} (authn with "is_superuser"): "ignore" for a login no
// device has, so that another authenticator of the chain may know it.
import type { FastifyInstance } from 'fastify'
import type { BrokerRights } from './rights.js'
import { objectBody, optionalText, text } from './body.js'
import { FleetError } from '../../core/errors.js'

export default async function emqxRoutes (app: FastifyInstance, opts: { rights: BrokerRights }): Promise<void> {
  app.post('/broker/emqx/authn', async (req) => {
    const body = objectBody(req.body)
    const r = await opts.rights.login(text(body, 'username'), optionalText(body, 'password'), optionalText(body, 'peerhost'))
    return { result: r.verdict === 'unknown' ? 'ignore' : r.verdict, is_superuser: r.verdict === 'allow' && r.superuser }
  })

  app.post('/broker/emqx/authz', async (req) => {
    const body = objectBody(req.body)
    const action = text(body, 'action')
    if (action !== 'publish' && action !== 'subscribe' && action !== 'all') throw new FleetError('request.invalid', ['action', 'publish, subscribe or all'])
    const username = text(body, 'username')
    const topic = text(body, 'topic')
    const allowed = action === 'all'
      ? opts.rights.mayUse(username, topic, 'publish') && opts.rights.mayUse(username, topic, 'subscribe')
      : opts.rights.mayUse(username, topic, action)
    return { result: allowed ? 'allow' : 'deny' }
  })
}
