// The AceManager HTTP endpoint of a simulated AirLink gateway (docs/protocols/msci.md A): a login that sets a
// session cookie, Embedded_Ace_Get_Task answering `id=value!` pairs (ids the gateway has not are left out), and
// Embedded_Ace_Set_Task taking `id=value!` pairs (400 when one of them is not writable: nothing is written then).
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  CONNECT_PATH, GET_PATH, SET_PATH, formatValues, parseGetBody, parseLoginBody, parseValues
} from '../../protocols/msci/acemanager.js'
import type { AirlinkGateway } from './gateway.js'
import { readBody } from '../http-body.js'

export interface AceManagerOptions { user: string, password: string, host?: string, port?: number }

/**
 * One gateway, or many behind one port told apart by the local address they were reached at (a bench gives each
 * gateway its own loopback address, 127.x.y.z, instead of a port each).
 */
export type Gateways = AirlinkGateway | ((localAddress: string) => AirlinkGateway | undefined)
export interface SimulatedAceManager { port: number, close (): Promise<void> }

const MAX_BODY = 64 * 1024

export async function startAceManager (gateways: Gateways, opts: AceManagerOptions): Promise<SimulatedAceManager> {
  const gatewayOf = typeof gateways === 'function' ? gateways : () => gateways
  const sessions = new Set<string>()
  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'text/plain', ...headers })
    res.end(body)
  }
  const signedIn = (req: IncomingMessage): boolean => {
    const token = /(?:^|;\s*)token=([0-9a-f]+)/.exec(req.headers.cookie ?? '')?.[1]
    return token !== undefined && sessions.has(token)
  }

  const server = createServer((req, res) => {
    (async () => {
      const gateway = gatewayOf((req.socket.localAddress ?? '').replace(/^::ffff:/, ''))
      if (gateway === undefined || !gateway.up()) { req.socket.destroy(); return } // none there, or rebooting: no answer
      const body = await readBody(req, MAX_BODY)
      if (req.method !== 'POST' || body === undefined) return send(res, 400, '')
      if (req.url === CONNECT_PATH) {
        const login = parseLoginBody(body)
        if (login === undefined || login.user !== opts.user || login.password !== opts.password) {
          return send(res, 200, '<?xml version="1.0"?><response><connect message=\'Invalid user name or password\'/></response>', { 'content-type': 'text/xml' })
        }
        const token = randomBytes(16).toString('hex')
        sessions.add(token)
        return send(res, 200, '<?xml version="1.0"?><response><connect message=\'OK\'/></response>', { 'content-type': 'text/xml', 'set-cookie': `token=${token}; Path=/; HttpOnly` })
      }
      if (!signedIn(req)) return send(res, 401, '')
      if (req.url === GET_PATH) {
        const asked = parseGetBody(body)
        if (!asked.ok) return send(res, 400, '')
        const values: Array<[number, string]> = []
        for (const id of asked.ids) {
          const v = gateway.read(id)
          if (v !== undefined) values.push([id, String(v)])
        }
        return send(res, 200, formatValues(values))
      }
      if (req.url === SET_PATH) {
        const pairs = parseValues(body)
        if (!pairs.ok || pairs.values.length === 0) return send(res, 400, '')
        const numeric = (v: string): number | string => /^-?\d+$/.test(v) ? Number(v) : v
        // All or nothing: a refused id leaves the others unwritten (a reboot among them does not happen either).
        if (pairs.values.some(([id]) => id < 1024 && id !== 65001)) return send(res, 400, 'not writable')
        for (const [id, v] of pairs.values) if (!gateway.write(id, numeric(v))) return send(res, 400, 'not writable')
        return send(res, 200, formatValues(pairs.values))
      }
      return send(res, 404, '')
    })().catch(() => { res.destroy() })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => { resolve() })
  })
  let closed: Promise<void> | undefined
  return {
    port: (server.address() as AddressInfo).port,
    async close () {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => { resolve() })
        server.closeAllConnections()
      })
      await closed
    }
  }
}
