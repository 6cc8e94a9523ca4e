// Adding a device transport touches no shared file but the list (the seams; bin/transports.ts): a tiny
// line protocol, built here through the same TransportFactory type, is given to the service beside the list, and
// the service iterates it: its port is bound and named in ports, readiness checks it, its routes are served, its
// connections are in the connected-devices gauge, its payloads go through the ingest pipeline, close ends it.
import { once } from 'node:events'
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeData } from '../../../protocols/airvantage/index.js'
import { transports } from '../../../bin/transports.js'
import { StartFailure } from '../../../bin/start-failure.js'
import type { DeviceTransport, TransportFactory } from '../../../ingest/transport.js'
import { createPipeline } from '../../../ingest/pipeline.js'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createDevice, eventually, messagesOf, pointsOf, refusedCount } from '../../helpers/devices.js'

/**
 * One line per message: `<login> <rest password> <AirVantage JSON>`; the answer is `ok`, or `refused <reason>`.
 * It logs in with the `rest` communication key and stores as MSCI: any key and protocol will do for the seam.
 */
function tinyTransport (events: string[]): TransportFactory {
  return async (deps): Promise<DeviceTransport> => {
    const pipeline = createPipeline({ ingest: deps.ingest, now: deps.now, protocol: 'MSCI' })
    const sockets = new Set<Socket>()
    const connectedSystems = new Map<Socket, string>()
    let server: Server | undefined
    async function handle (socket: Socket, login: string, password: string, json: string): Promise<void> {
      const auth = await deps.devices.authenticate(login, password, 'rest', socket.remoteAddress ?? '')
      if (!auth.ok) { socket.write(`refused ${auth.reason}\n`); return }
      connectedSystems.set(socket, auth.session.systemUid)
      const outcome = await pipeline.data(auth.session, Buffer.from(json), (p, receivedAt) => decodeData(p, { receivedAt }))
      socket.write(outcome.kind === 'stored' ? 'ok\n' : `refused ${outcome.kind === 'refused' ? outcome.reason : 'forbidden'}\n`)
    }
    const serve = (socket: Socket): void => {
      sockets.add(socket)
      socket.on('close', () => { sockets.delete(socket); connectedSystems.delete(socket) })
      socket.on('error', () => { socket.destroy() })
      let buffered = ''
      socket.on('data', (chunk) => {
        buffered += chunk.toString()
        let at: number
        while ((at = buffered.indexOf('\n')) >= 0) {
          const [login = '', password = '', ...json] = buffered.slice(0, at).split(' ')
          buffered = buffered.slice(at + 1)
          handle(socket, login, password, json.join(' ')).catch(() => { socket.destroy() })
        }
      })
    }
    return {
      name: 'tiny',
      protocols: ['MSCI'],
      http: async (app) => { app.get('/tiny/ping', { config: { public: true } }, async () => ({ pong: true })) },
      listeners: [{
        name: 'tiny',
        variable: 'M3DA_PORT',
        async listen (port, host) {
          const s = createServer(serve)
          server = s
          s.listen(port, host)
          await Promise.race([once(s, 'listening'), once(s, 'error').then(([err]) => { throw err })])
          const address = s.address()
          return typeof address === 'object' && address !== null ? address.port : port
        },
        listening: () => server?.listening === true
      }],
      connected: (systemUid) => [...connectedSystems.values()].includes(systemUid),
      connections: () => [{ kind: 'line', count: connectedSystems.size }],
      async close () {
        events.push('closed')
        for (const s of sockets) s.destroy()
        const s = server
        if (s?.listening === true) await new Promise<void>((resolve) => { s.close(() => { resolve() }) })
      }
    }
  }
}

async function lineClient (port: number): Promise<{ send: (line: string) => Promise<string>, end: () => void }> {
  const socket = netConnect(port, '127.0.0.1')
  await once(socket, 'connect')
  let buffered = ''
  const waiting: Array<(line: string) => void> = []
  socket.on('data', (chunk) => {
    buffered += chunk.toString()
    let at: number
    while ((at = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, at)
      buffered = buffered.slice(at + 1)
      waiting.shift()?.(line)
    }
  })
  return {
    send: async (line) => await new Promise<string>((resolve) => { waiting.push(resolve); socket.write(line + '\n') }),
    end: () => { socket.destroy() }
  }
}

describe('a transport added to the list', () => {
  const events: string[] = []
  let stack: Stack
  beforeAll(async () => { stack = await startStack({ listen: true, transports: [...transports, tinyTransport(events)] }) })
  afterAll(async () => { await stack.close() })

  it('listens on its own port, named in the bound ports beside the others', () => {
    expect(Object.keys(stack.ports).sort()).toEqual(['lwm2m', 'lwm2ms', 'm3da', 'mqtt', 'tiny'])
    expect(stack.ports.tiny).toBeGreaterThan(0)
    // After every transport of the list (bin/transports.ts), whichever they are.
    const names = stack.service.transports.map((t) => t.name)
    expect(names.slice(0, 3)).toEqual(['mqtt', 'rest', 'm3da'])
    expect(names.slice(-1)).toEqual(['tiny'])
    expect(names.length).toBe(transports.length + 1)
  })

  it('is checked by readiness and its routes are served on the HTTP port', async () => {
    const ready = await fetch(`${stack.httpUrl}/ready`)
    expect(ready.status).toBe(200)
    expect((await ready.json() as { checks: Record<string, string> }).checks).toMatchObject({ mqtt: 'ok', tiny: 'ok' })
    expect(await (await fetch(`${stack.httpUrl}/tiny/ping`)).json()).toEqual({ pong: true })
  })

  it('stores through the ingest pipeline, refuses and counts, and its connections are in the gauge', async () => {
    const d = await createDevice(stack)
    const c = await lineClient(stack.ports.tiny ?? 0)
    try {
      expect(await c.send(`${d.serial} ${d.restPassword ?? ''} {"machine.temperature": 21.5}`)).toBe('ok')
      const refused = refusedCount(stack, 'MSCI:')
      expect(await c.send(`${d.serial} ${d.restPassword ?? ''} {not json`)).toBe('refused payload.invalid.json')
      expect(refusedCount(stack, 'MSCI:')).toBe(refused + 1)
      expect(await c.send(`${d.serial} wrong {"a": 1}`)).toBe('refused device.bad.password')
      const messages = await messagesOf(stack, d.uid)
      expect(messages.map((m) => m.protocol)).toEqual(['MSCI'])
      expect((await pointsOf(stack, d.uid)).map((p) => [p.dataId, p.num])).toEqual([['machine.temperature', 21.5]])
      expect(stack.service.transports.find((t) => t.name === 'tiny')?.connected(d.uid)).toBe(true)
      const metrics = await (await fetch(`${stack.httpUrl}/metrics`)).text()
      expect(metrics).toMatch(/fleet_devices_connected\{protocol="MSCI",version="line"\} 1/)
    } finally {
      c.end()
    }
  })
})

describe('a transport whose port cannot be bound', () => {
  const events: string[] = []
  let stack: Stack
  let closed = false
  let busy: Server
  beforeAll(async () => {
    busy = createServer().listen(0, '127.0.0.1')
    await once(busy, 'listening')
    const address = busy.address()
    const port = typeof address === 'object' && address !== null ? address.port : 0
    stack = await startStack({ env: { MQTT_PORT: '0', M3DA_PORT: String(port), LWM2M_PORT: '0', LWM2MS_PORT: '0' }, transports: [...transports, tinyTransport(events)] })
  })
  afterAll(async () => {
    if (!closed) await stack.close()
    await new Promise<void>((resolve) => { busy.close(() => { resolve() }) })
  })

  it('fails the start naming its port variable (bin/start-failure.ts), and readiness names it', async () => {
    const failure = await stack.service.listen({ host: '127.0.0.1' }).then(() => undefined, (err: unknown) => err)
    expect(failure).toBeInstanceOf(StartFailure)
    expect((failure as Error).message).toMatch(/^M3DA_PORT \d+ is already in use/)
    await eventually(async () => (await stack.api.inject({ method: 'GET', url: '/ready' })).statusCode === 503, 2000, 'not ready')
    expect((await stack.api.inject({ method: 'GET', url: '/ready' })).json()).toMatchObject({ failed: ['m3da', 'lwm2m', 'lwm2ms', 'tiny'], checks: { mqtt: 'ok', m3da: 'failed', lwm2m: 'failed', lwm2ms: 'failed', tiny: 'failed' } })
  })

  it('is closed with the service', async () => {
    closed = true
    await stack.close()
    expect(events).toEqual(['closed'])
  })
})
