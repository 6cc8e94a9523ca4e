// M3DA over TCP (ingest/m3da/tcp.ts, ingest/login-gate.ts): a connection gets M3DA_LOGIN_TIMEOUT_MS to send an
// authentic envelope; a silent one, or one whose envelopes are never authentic, is closed then. Once a
// device's envelope was authentic, the connection stays as long as before (5 minutes of silence).
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { metricValue } from '../../helpers/raw-mqtt.js'
import { m3daApplication, m3daSystem } from './m3da-fixtures.js'
import { sendUnsecured, tcpLink } from './m3da-device.js'

// Long enough for a login on a loaded machine (a device's first envelope or CONNECT is answered within it).
const DEADLINE_MS = 2000

let stack: Stack
let open: string
beforeAll(async () => {
  stack = await startStack({ listen: true, env: { M3DA_LOGIN_TIMEOUT_MS: String(DEADLINE_MS) } })
  open = await m3daApplication(stack, { authentication: 'none' })
}, 120_000)
afterAll(async () => { await stack.close() })

const timeouts = async (): Promise<number> => await metricValue(stack, 'fleet_device_connections_closed_before_login_total', { transport: 'm3da', reason: 'login_timeout' })

/** A TCP connection to M3DA_PORT that sends nothing; resolves when the service closes it. */
async function silentSocket (): Promise<{ socket: Socket, closed: Promise<void> }> {
  const socket = connect(stack.ports.m3da ?? 0, '127.0.0.1')
  socket.on('error', () => {})
  await new Promise<void>((resolve) => { socket.once('connect', resolve) })
  return { socket, closed: new Promise<void>((resolve) => { socket.once('close', () => { resolve() }) }) }
}

describe('M3DA login deadline', () => {
  it('a silent socket is closed and counted', async () => {
    const before = await timeouts()
    const { closed } = await silentSocket()
    await closed
    expect(await timeouts()).toBe(before + 1)
  })

  it('an authentic envelope ends the deadline: the device stays past it', async () => {
    const s = await m3daSystem(stack, { applications: [open] })
    const link = await tcpLink(stack)
    const message = [{ kind: 'message' as const, path: 'a', ticketId: null, body: { b: 1 } }]
    expect((await sendUnsecured(link, s.serial, message)).status).toBe(200)
    // A socket opened after the device's envelope reaches its deadline after the device's would have.
    const later = await silentSocket()
    await later.closed
    expect(link.closed()).toBe(false)
    expect((await sendUnsecured(link, s.serial, message)).status).toBe(200)
    await link.close()
  })
})
