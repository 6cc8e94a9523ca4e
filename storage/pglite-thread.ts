import { Worker } from 'node:worker_threads'
import { errorOf, type Answer, type Ready, type Request, type WorkerInput } from './pglite-protocol.js'

// The thread PGlite runs in (storage/pglite-worker.ts) as storage/pglite-db.ts talks to it: numbered requests, each
// settled by the answer of the same id. A thread that fails or exits fails every request waiting and every one after.

const ENTRY = new URL('./pglite-worker.mjs', import.meta.url)

type Pending = (a: Answer) => void
export type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never

export interface PgliteThread {
  /** Sends a request and answers its successful answer; rejects with the statement's error (its fields kept). */
  call (r: WithoutId<Request>): Promise<Extract<Answer, { ok: true }>>
  /** Why the thread is gone (it failed or exited); undefined while it runs. */
  gone (): Error | undefined
  terminate (): Promise<void>
}

/** Starts the thread and resolves once PGlite is open in it; rejects (the thread terminated) when it fails to open. */
export async function startPgliteThread (workerData: WorkerInput): Promise<PgliteThread> {
  const worker = new Worker(ENTRY, { workerData })
  const pending = new Map<number, Pending>()
  let gone: Error | undefined
  const lost = (err: Error): void => {
    gone ??= err
    for (const settle of pending.values()) settle({ id: 0, ok: false, error: { message: gone.message, name: 'Error' } })
    pending.clear()
  }
  // Until the thread answers its first message, `opened` hears how the opening went; then the answers.
  let opened: ((err?: Error) => void) | undefined
  worker.on('message', (m: Answer | Ready) => {
    if ('ready' in m) { opened?.(m.ready ? undefined : errorOf(m.error)); return }
    const settle = pending.get(m.id)
    pending.delete(m.id)
    settle?.(m)
  })
  worker.on('error', (err) => { opened?.(err); lost(err) })
  worker.on('exit', (code) => {
    const err = new Error(`the PGlite thread exited (${code})`)
    opened?.(err)
    lost(err)
  })
  try {
    await new Promise<void>((resolve, reject) => { opened = (err) => { if (err === undefined) resolve(); else reject(err) } })
  } catch (err) {
    await worker.terminate()
    throw err
  } finally {
    opened = undefined
  }
  // The thread keeps the process alive only while a statement is waiting for it, as an in-thread store would.
  worker.unref()

  let nextId = 1
  return {
    async call (r) {
      if (gone !== undefined) throw gone
      const id = nextId++
      if (pending.size === 0) worker.ref()
      const answer = await new Promise<Answer>((resolve) => {
        pending.set(id, resolve)
        worker.postMessage({ ...r, id })
      })
      if (pending.size === 0) worker.unref()
      if (!answer.ok) throw errorOf(answer.error)
      return answer
    },
    gone: () => gone,
    async terminate () { await worker.terminate() }
  }
}
