// Installs over M3DA (docs/protocols/m3da.md#software-updates): the Mihini agent gets `@sys.commands {SoftwareUpdate =
// {url, signature}}` with a ticket in the reply to its next envelope, downloads the package from the link (its MD5
// the signature), and answers the ticket: status 0 ends the task SUCCESS with the new revision in place of the old,
// an update error code ends it FAILURE with the code and its meaning.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { M3daMessage, M3daObject } from '../../../protocols/m3da/index.js'
import type { Stack } from '../../helpers/stack.js'
import { allTasks, started, until, waitFinished } from '../../helpers/operations.js'
import { sendUnsecured, tcpLink, type Outgoing } from '../m3da/m3da-device.js'
import { m3daSystem, startM3daStack, type M3daSystem } from '../m3da/m3da-fixtures.js'
import { applicationsOf, download, postSoftware, releasedApplication, sha256, type Released } from './install-fixtures.js'

let stack: Stack
let open: string
beforeAll(async () => { ({ stack, open } = await startM3daStack()) }, 120_000)
afterAll(async () => { await stack?.close() })

type Send = (objects: Outgoing[]) => Promise<M3daObject[]>

/**
 * An agent admitted without security, whose system carries the M3DA firmware and revision 1.0 of a Mihini package
 * (which declares no protocol of its own: two applications of a system may not speak the same one); answers it with
 * revision 2.0 released and the agent's TCP sender.
 */
async function agent (): Promise<{ s: M3daSystem, old: Released, next: Released, send: Send }> {
  const old = await releasedApplication(stack, { manager: 'MIHINI_APPCON', protocols: [], revision: '1.0' })
  const next = await releasedApplication(stack, { manager: 'MIHINI_APPCON', protocols: [], type: old.type, revision: '2.0' })
  const s = await m3daSystem(stack, { applications: [open, old.uid] })
  const link = await tcpLink(stack)
  return { s, old, next, send: async (objects) => (await sendUnsecured(link, s.serial, objects)).objects }
}

/** Keep-alives until the reply carries the update command. */
async function updateReceived (send: Send): Promise<M3daMessage> {
  let got: M3daMessage | undefined
  await until('the SoftwareUpdate in a reply', async () => {
    got = (await send([])).find((o): o is M3daMessage => o.kind === 'message')
    return got !== undefined
  }, 30_000)
  return got as M3daMessage
}

const text = (v: unknown): string => Buffer.isBuffer(v) ? v.toString('utf8') : String(v)

describe('the Mihini agent', { timeout: 120_000 }, () => {
  it('SoftwareUpdate {url, signature}: the link serves the package of that MD5; status 0 puts 2.0 in place of 1.0', async () => {
    const { s, next, send } = await agent()
    const uid = await started(postSoftware(stack, 'install', { application: next.uid, systems: { uids: [s.uid] }, scheduledTime: null, timeout: null, protocol: '', parameters: null }))
    const command = await updateReceived(send)
    expect(command).toMatchObject({ path: '@sys.commands' })
    expect(command.ticketId).toBeGreaterThan(0)
    const update = command.body.get('SoftwareUpdate') as Map<string, unknown>
    expect([...update.keys()].sort()).toEqual(['signature', 'url'])
    expect(text(update.get('signature'))).toBe(next.md5)
    const got = await download(text(update.get('url')))
    expect({ status: got.status, md5: createHash('md5').update(got.bytes).digest('hex'), sha256: sha256(got.bytes) }).toEqual({ status: 200, md5: next.md5, sha256: next.sha256 })
    await send([{ kind: 'response', ticketId: command.ticketId ?? 0, status: 0, data: null }])
    await waitFinished(stack, uid, 15_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'SUCCESS', error: null }])
    expect(await applicationsOf(stack, s.uid)).toEqual([open, next.uid].sort())
  })

  it('an update error code: FAILURE with the code, its meaning and the agent\'s data; the applications stay', async () => {
    const { s, old, next, send } = await agent()
    const uid = await started(postSoftware(stack, 'install', { application: next.uid, systems: { uids: [s.uid] } }))
    const command = await updateReceived(send)
    await send([{ kind: 'response', ticketId: command.ticketId ?? 0, status: 553, data: 'package signature differs' }])
    await waitFinished(stack, uid, 15_000)
    expect(await allTasks(stack, uid)).toMatchObject([{ state: 'FAILURE', error: { code: 'operation.device.error', message: 'status 553 (MD5 mismatch): package signature differs' } }])
    expect(await applicationsOf(stack, s.uid)).toEqual([open, old.uid].sort())
  })
})
