import type { FastifyInstance } from 'fastify'
import websocket from '@fastify/websocket'
import { createWebSocketStream } from 'ws'
import { TLSSocket } from 'node:tls'
import type { MqttEndpoint } from './endpoint.js'
import { presentedCertificate } from '../tls/presented.js'

/** MQTT over WebSocket at /mqtt on the HTTP port, and over wss on the HTTPS port (docs/devices.md). */
export default async function mqttWebSocketRoutes (app: FastifyInstance, { mqtt }: { mqtt: Pick<MqttEndpoint, 'handle'> }): Promise<void> {
  // The API registers WebSocket once for the server (api/app.ts); a second registration would route upgrades twice.
  if (!app.hasDecorator('websocketServer')) await app.register(websocket, { options: { maxPayload: 2 * 1024 * 1024 } })
  app.get('/mqtt', { websocket: true, config: { public: true }, schema: { hide: true } }, (socket, req) => {
    const stream = createWebSocketStream(socket)
    // Over wss the client certificate of the handshake travels with the connection, as on MQTTS_PORT.
    const certificate = req.raw.socket instanceof TLSSocket ? presentedCertificate(req.raw.socket) : undefined
    mqtt.handle(stream, req.ip, certificate === undefined ? {} : { certificate })
  })
}
