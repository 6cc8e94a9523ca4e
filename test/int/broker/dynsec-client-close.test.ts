// The dynamic security client (ingest/broker-sync/dynsec-client.ts) when the broker closes the connection before it is
// up, as one restarting for a new trust bundle does: the command fails with BrokerUnavailableError, and nothing else
// rejects unobserved (an unhandled rejection ends the service's process).
import { createServer, type Server } from 'node:net'
import { once } from 'node:events'
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest'
import { BrokerUnavailableError, createDynsecClient } from '../../../ingest/broker-sync/dynsec-client.js'

let server: Server
let port = 0
beforeAll(async () => {
  // Accepts, then closes at once: no CONNACK ever comes.
  server = createServer((socket) => { socket.destroy() })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  port = (server.address() as { port: number }).port
})
afterAll(async () => { server.close(); await once(server, 'close') })

it('fails a command whose connection closes before it is up, leaving no rejection unobserved', async () => {
  const unhandled: unknown[] = []
  const record = (reason: unknown): void => { unhandled.push(reason) }
  process.on('unhandledRejection', record)
  onTestFinished(() => { process.off('unhandledRejection', record) })
  const client = createDynsecClient(`mqtt://admin:secret@127.0.0.1:${port}`, { timeoutMs: 60_000 })
  onTestFinished(async () => { await client.close() })

  await expect(client.run([{ command: 'listClients' }, { command: 'listRoles' }])).rejects.toBeInstanceOf(BrokerUnavailableError)
  // Node reports a rejection nobody handled once the microtasks of the turn that rejected it have run.
  await new Promise((resolve) => { setImmediate(resolve) })
  expect(unhandled).toEqual([])
})
