import type { FastifyInstance } from 'fastify'
import websocket from '@fastify/websocket'
import { createWebSocketStream } from 'ws'
import type { MqttEndpoint } from './endpoint.js'

/** MQTT over WebSocket at /mqtt on the HTTP port (docs/devices.md). */
export default async function mqttWebSocketRoutes (app: FastifyInstance, { mqtt }: { mqtt: Pick<MqttEndpoint, 'handle'> }): Promise<void> {
  // The API registers WebSocket once for the server (api/app.ts); a second registration would route upgrades twice.
  if (!app.hasDecorator('websocketServer')) await app.register(websocket, { options: { maxPayload: 2 * 1024 * 1024 } })
  app.get('/mqtt', { websocket: true, config: { public: true }, schema: { hide: true } }, (socket, req) => {
    const stream = createWebSocketStream(socket)
    mqtt.handle(stream, req.ip)
  })
}
