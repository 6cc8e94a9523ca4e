// Expired download links go (docs/packages.md#downloads): the operations engine's timeout sweep removes the links past
// their expiry, at most once a minute of the engine's clock; a link still valid stays. The clock is the test's (the
// links expire far enough ahead of the real one that the stack's own engine, on real time, removes none of them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createSystem } from '../../helpers/systems.js'
import { allTasks } from '../../helpers/operations.js'
import { uniq } from '../../helpers/factories.js'
import { ownEngine, type OwnEngine } from '../../helpers/own-engine.js'
import { createRepositories } from '../../../storage/repositories/index.js'
import { EXPIRED_LINKS_EVERY_MS } from '../../../core/operations/engine/sweeps.js'

let stack: Stack
let own: OwnEngine

beforeAll(async () => {
  stack = await startStack()
  own = await ownEngine(stack, { run: async () => ({ state: 'SUCCESS' }) })
}, 120_000)
afterAll(async () => {
  await own?.close()
  await stack?.close()
})

describe('expired download links', () => {
  it('the timeout sweep removes the links past their expiry, once a minute, and keeps the others', async () => {
    const system = (await createSystem(stack, { name: uniq('links') })).uid as string
    const op = await own.launch([system], {})
    await own.idle()
    const [task] = await allTasks(stack, op)
    const downloads = createRepositories(stack.db).packageDownloads
    const t0 = own.clock.now()
    const link = async (expiresAt: number): Promise<string> => {
      const hash = uniq('link')
      await downloads.insert(hash, { systemUid: system, taskUid: task?.uid as string, artifact: 'a'.repeat(64), file: 'bin/app.tar', size: 10, expiresAt }, t0)
      return hash
    }
    const [early, late, valid] = [await link(t0 + 30_000), await link(t0 + EXPIRED_LINKS_EVERY_MS + 1_000), await link(t0 + 10 * EXPIRED_LINKS_EVERY_MS)]
    const left = async (): Promise<string[]> =>
      (await Promise.all([early, late, valid].map(async (h) => (await downloads.find(h)) === undefined ? undefined : h))).filter((h) => h !== undefined)

    await own.engine.sweepTimeouts()
    expect(await left()).toEqual([early, late, valid])
    own.clock.move(EXPIRED_LINKS_EVERY_MS)
    await own.engine.sweepTimeouts()
    expect(await left()).toEqual([late, valid])
    own.clock.move(2_000)
    // Less than a minute after the last removal: the late link, expired now, waits for the next one.
    await own.engine.sweepTimeouts()
    expect(await left()).toEqual([late, valid])
    own.clock.move(EXPIRED_LINKS_EVERY_MS)
    await own.engine.sweepTimeouts()
    expect(await left()).toEqual([valid])
  })
})
