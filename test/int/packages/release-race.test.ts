// Two releases of one type and revision at the same moment (docs/decisions/0027-release-reads-the-package-in-the-request.md):
// both pass the request's check and store their binaries; the first task to run creates the application, the other
// fails with application.type.already.used and removes the binaries it stored that no application references, while
// bytes the same as the winner's stay (the winner's artifact). The worker is held so that both requests are read
// before either task runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { eventually } from '../../helpers/eventually.js'
import { createSystems, holdWorker } from '../../helpers/operations.js'
import { applicationsOfType, binaryBytes, finished, greenhousePackage, postRelease, sha256 } from './release-helpers.js'

let stack: Stack

beforeAll(async () => {
  stack = await startStack({ env: { WORKER_CONCURRENCY: '1', CALLBACK_ALLOW_PRIVATE: 'true' } })
}, 120_000)
afterAll(async () => { await stack?.close() })

/** Starts a release and answers its operation's uid (the task not run yet while the worker is held). */
async function started (bytes: Buffer): Promise<string> {
  const res = await postRelease(stack, bytes)
  expect(res.statusCode, res.body).toBe(200)
  return res.json().operation as string
}

/**
 * Releases two packages with the worker held, so that both requests are read (their binaries stored) before either
 * task runs; answers the winner (its task SUCCESS) and the loser (FAILURE application.type.already.used).
 */
async function race (first: Buffer, second: Buffer, stored: Buffer[]): Promise<{ winner: number, loser: number }> {
  const [system = ''] = await createSystems(stack, 1, uniq('hold'))
  const hold = await holdWorker(stack, system)
  let ops: string[]
  try {
    ops = [await started(first), await started(second)]
    for (const b of stored) expect(await stack.ctx.artifacts.stat(sha256(b))).toEqual({ size: b.length })
  } finally {
    hold.release()
    await hold.close()
  }
  const tasks = await Promise.all(ops.map(async (uid) => (await finished(stack, uid)).task))
  const winner = tasks.findIndex((t) => t.state === 'SUCCESS')
  expect(winner).toBeGreaterThanOrEqual(0)
  const loser = 1 - winner
  expect(tasks[loser]).toMatchObject({ state: 'FAILURE', error: { code: 'application.type.already.used' } })
  return { winner, loser }
}

describe('two releases of one type and revision at once', { timeout: 90_000 }, () => {
  it('the loser removes its binaries no application references, and keeps those that are the winner\'s', async () => {
    // The same package twice: the loser's bytes are the winner's artifact.
    const same = uniq('race.same')
    const shared = binaryBytes(30_000, same)
    await race(await greenhousePackage(same, '1.0', shared), await greenhousePackage(same, '1.0', shared), [shared])
    expect(await applicationsOfType(stack, same)).toHaveLength(1)

    // Two packages of one type and revision whose binaries differ: the loser's is referenced by nothing.
    const differ = uniq('race.differ')
    const bytes = [binaryBytes(30_000, `${differ}:a`), binaryBytes(30_000, `${differ}:b`)] as const
    const { winner, loser } = await race(await greenhousePackage(differ, '1.0', bytes[0]), await greenhousePackage(differ, '1.0', bytes[1]), [...bytes])
    const [app] = await applicationsOfType(stack, differ)
    expect(app?.binaries).toMatchObject([{ sha256: sha256(bytes[winner] as Buffer) }])
    await eventually(async () => await stack.ctx.artifacts.stat(sha256(bytes[loser] as Buffer)) === undefined, 10_000, 'the loser\'s binary removed')
    expect(await stack.ctx.artifacts.stat(sha256(bytes[winner] as Buffer))).toEqual({ size: 30_000 })
    // The first race's loser was done with long before (its removal queued ahead of everything the second race did).
    expect(await stack.ctx.artifacts.stat(sha256(shared))).toEqual({ size: shared.length })
  })
})
