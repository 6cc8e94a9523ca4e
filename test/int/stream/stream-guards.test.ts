// GET /api/v1/stream: one access token holds at most MAX_STREAMS_PER_TOKEN streams at once, and a browser page may
// open one only from the service's own origin or one of CORS_ORIGINS (a WebSocket is not covered by CORS). Both are
// refused before the upgrade with the API's error.
import { once } from 'node:events'
import { WebSocket } from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_EMAIL, ADMIN_PASSWORD, startStack, type Stack } from '../../helpers/stack.js'
import { openStream, refusedUpgrade, streamUrl, type StreamClient } from '../../helpers/stream.js'
import { eventually } from '../../helpers/devices.js'
import { MAX_STREAMS_PER_TOKEN } from '../../../api/routes/stream.routes.js'

const APP_ORIGIN = 'https://app.example.com'

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true, env: { CORS_ORIGINS: APP_ORIGIN } }) }, 180_000)
afterAll(async () => { await stack?.close() })

/** Opens a stream with these headers; resolves once open. */
async function opened (headers: Record<string, string>): Promise<WebSocket> {
  const ws = new WebSocket(streamUrl(stack), { headers })
  await once(ws, 'open')
  return ws
}

describe('streams per token', () => {
  it(`a token holds at most ${MAX_STREAMS_PER_TOKEN}; one more is refused 429 until one closes; another token is not held back`, async () => {
    const token = await stack.login(ADMIN_EMAIL, ADMIN_PASSWORD)
    const streams: StreamClient[] = []
    for (let i = 0; i < MAX_STREAMS_PER_TOKEN; i++) streams.push(await openStream(stack, token))
    const refused = await refusedUpgrade(streamUrl(stack), { authorization: `Bearer ${token}` })
    expect(refused).toEqual({ status: 429, body: { error: 'rate.limit.exceeded', errorParameters: ['streams', `at most ${MAX_STREAMS_PER_TOKEN} live streams open per access token`] } })
    // The same token as the access_token parameter is the same token.
    expect((await refusedUpgrade(streamUrl(stack, `access_token=${token}`))).status).toBe(429)
    const other = await openStream(stack, await stack.login(ADMIN_EMAIL, ADMIN_PASSWORD))
    await streams.pop()?.close()
    // The slot is given back once the socket has closed on the service's side as well.
    const again: StreamClient = await eventually(async () => await openStream(stack, token).catch(() => undefined), 5000, 'a stream again') as StreamClient
    expect(await again.ask({ action: 'subscribe', operations: { all: true } })).toMatchObject({ event: 'subscribed' })
    for (const s of [...streams, other, again]) await s.close()
  })
})

describe('the Origin of a browser page', () => {
  it('another site\'s page is refused 403 origin.forbidden', async () => {
    for (const origin of ['https://evil.example', 'null', `http://127.0.0.1.evil.example:${new URL(stack.httpUrl).port}`]) {
      const refused = await refusedUpgrade(streamUrl(stack), { authorization: `Bearer ${stack.adminToken}`, origin })
      expect(refused).toEqual({ status: 403, body: { error: 'origin.forbidden', errorParameters: [origin, 'CORS_ORIGINS'] } })
    }
  })

  it('the service\'s own origin, an origin of CORS_ORIGINS, and clients that send none are served', async () => {
    const own = new URL(stack.httpUrl).origin
    const origins: Array<Record<string, string>> = [{ origin: own }, { origin: APP_ORIGIN }, {}]
    for (const headers of origins) {
      const ws = await opened({ authorization: `Bearer ${stack.adminToken}`, ...headers })
      ws.close()
      await once(ws, 'close')
    }
  })
})
