// Request lines of the device routes are debug lines, so that the default level (info) is not two lines per device
// exchange; the API's request lines stay at info. The service's own logger writes to a captured stream at debug.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../bin/logger.js'
import { startStack, type Stack } from '../helpers/stack.js'
import { createDevice, deviceFetch, type Device } from '../helpers/devices.js'

const lines: Array<{ level: number, msg: string, req?: { url: string }, reqId?: string }> = []
const capture = { write (line: string): void { lines.push(JSON.parse(line)) } }
const DEBUG = 20
const INFO = 30

let stack: Stack
let device: Device
beforeAll(async () => {
  stack = await startStack({ listen: true, log: createLogger({ LOG_LEVEL: 'debug', LOG_FORMAT: 'json' }, capture) })
  device = await createDevice(stack)
})
afterAll(async () => { await stack.close() })

/** The level of each request line of the requests whose URL starts with prefix. */
function requestLevels (prefix: string): number[] {
  const ids = new Set(lines.filter((l) => l.msg === 'incoming request' && l.req?.url.startsWith(prefix) === true).map((l) => l.reqId))
  return lines.filter((l) => ids.has(l.reqId) && (l.msg === 'incoming request' || l.msg === 'request completed')).map((l) => l.level)
}

describe('request lines', () => {
  it('of the device routes are at debug, those of the API at info', async () => {
    const auth = { user: device.serial, password: device.restPassword ?? '' }
    expect((await deviceFetch(stack, 'POST', '/device/messages', { ...auth, body: JSON.stringify([{ 'temp.celsius': [{ timestamp: Date.now(), value: 20 }] }]) })).status).toBe(200)
    expect((await deviceFetch(stack, 'GET', '/device/tasks', auth)).status).toBe(200)
    expect((await fetch(`${stack.httpUrl}/api/v1/users/current`, { headers: { authorization: `Bearer ${stack.adminToken}` } })).status).toBe(200)

    expect(requestLevels('/device/messages')).toEqual([DEBUG, DEBUG])
    expect(requestLevels('/device/tasks')).toEqual([DEBUG, DEBUG])
    const api = requestLevels('/api/v1/users/current')
    expect(api.length).toBeGreaterThanOrEqual(2)
    expect(new Set(api)).toEqual(new Set([INFO]))
  })
})
