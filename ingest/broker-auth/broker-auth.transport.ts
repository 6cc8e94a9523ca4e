// The HTTP endpoints EMQX and VerneMQ ask about device logins and topic rights, as a transport of the
// list (bin/transports.ts) so that they run where devices are served (the ingest role). They carry no device
// protocol of their own: the devices talk to the broker. Off (not routed) until BROKER_AUTH_SECRET or
// BROKER_AUTH_ALLOW says who may call them.
import type { FastifyInstance } from 'fastify'
import type { DeviceTransport, TransportFactory } from '../transport.js'
import { brokerAccount } from '../broker-sync/dynsec-client.js'
import { createBrokerRights } from './rights.js'
import { createGuard } from './guard.js'
import emqxRoutes from './emqx.routes.js'
import vernemqRoutes from './vernemq.routes.js'

export const brokerAuthTransport: TransportFactory = async (deps): Promise<DeviceTransport> => {
  const guard = createGuard({ secret: deps.config.BROKER_AUTH_SECRET, allow: deps.config.BROKER_AUTH_ALLOW })
  const account = deps.config.MQTT_URL === undefined ? { username: undefined, password: undefined } : brokerAccount(deps.config.MQTT_URL)
  const rights = createBrokerRights(deps.devices, account)
  const http = guard === undefined
    ? undefined
    : async (app: FastifyInstance) => {
      app.addHook('onRequest', async (req, reply) => {
        if (!guard(req)) return await reply.status(403).send({ error: 'missing.rights', errorParameters: ['broker'] })
      })
      await app.register(emqxRoutes, { rights })
      await app.register(vernemqRoutes, { rights })
    }
  return {
    name: 'broker-auth',
    protocols: [],
    ...(http === undefined ? {} : { http }),
    connected: () => false,
    connections: () => [],
    close: async () => {}
  }
}
