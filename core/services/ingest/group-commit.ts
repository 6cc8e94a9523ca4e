// Group commit (docs/architecture.md#how-data-flows): callers wait for their item's commit; items that arrive while a
// batch is being written are written together in the next one, so a busy store gets big batches and an idle one
// answers at once. The buffer is bounded: when it is full, callers wait before their item is even queued, so
// acknowledgements to devices slow down instead of memory growing.

interface Pending<T> { item: T, resolve: () => void, reject: (err: unknown) => void }

export interface GroupCommitOptions<T> {
  /** Writes a batch in one transaction. Answers, per item, an error to reject it with (or undefined when stored). */
  write: (items: T[]) => Promise<Array<Error | undefined>>
  maxBatch: number
  maxPending: number
  /** Batches written at the same time (more than one only helps a store with several connections). */
  parallel: number
  onBatch?: (size: number, ms: number) => void
  /**
   * Whether a batch's error is no item's fault (the store is unavailable): then every item of the batch is
   * rejected with it at once, rather than written one by one to find a bad item.
   */
  failsWhole?: (err: unknown) => boolean
  /**
   * A batch of fewer items than `min` waits up to `ms` for more before it is written. A transaction costs the store
   * about as much for 50 messages as for 500 (its statements, its commit): devices that wait for each answer before
   * sending again (M3DA allows one package in flight) came in batches of about 50 and spent the store three times
   * more per message than MQTT devices did (bench ingest --protocol m3da). Absent: written at once.
   */
  gather?: { min: number, ms: number }
}

export interface GroupCommit<T> {
  /** Resolves once the item is committed; rejects when it could not be stored. */
  submit (item: T): Promise<void>
  /** Items queued or being written. */
  pending (): number
  /** Resolves when every submitted item has been written. */
  drain (): Promise<void>
}

export function createGroupCommit<T> (opts: GroupCommitOptions<T>): GroupCommit<T> {
  const queue: Array<Pending<T>> = []
  const spaceWaiters: Array<() => void> = []
  const drainWaiters: Array<() => void> = []
  let running = 0
  let inFlight = 0

  function wakeSpace (): void {
    while (spaceWaiters.length > 0 && queue.length + inFlight < opts.maxPending) spaceWaiters.shift()?.()
  }

  async function writeBatch (batch: Array<Pending<T>>): Promise<void> {
    const started = Date.now()
    let results: Array<Error | undefined>
    try {
      results = await opts.write(batch.map((p) => p.item))
    } catch (err) {
      if (opts.failsWhole?.(err) === true) {
        results = batch.map(() => err as Error)
      } else {
        // One bad item must not fail its neighbours: write them one by one to find it.
        results = []
        for (const p of batch) {
          try { results.push((await opts.write([p.item]))[0]) } catch (e) { results.push(e as Error) }
        }
      }
    }
    opts.onBatch?.(batch.length, Date.now() - started)
    batch.forEach((p, i) => { const e = results[i]; if (e === undefined) p.resolve(); else p.reject(e) })
  }

  /** Resolves once `min` items are queued or `ms` passed. */
  async function gathered (gather: { min: number, ms: number }): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => { enough = undefined; resolve() }, gather.ms)
      enough = () => { if (queue.length >= gather.min) { clearTimeout(timer); enough = undefined; resolve() } }
    })
  }
  /** Set while a batch gathers: told of each item queued. */
  let enough: (() => void) | undefined

  async function loop (): Promise<void> {
    running++
    try {
      while (queue.length > 0) {
        if (opts.gather !== undefined && queue.length < opts.gather.min) await gathered(opts.gather)
        const batch = queue.splice(0, opts.maxBatch)
        inFlight += batch.length
        // A store that runs in this thread (PGlite did, before storage/pglite-worker.ts) can answer a whole write
        // without the event loop ever turning: then nothing that arrived meanwhile has been read yet, and the next batch would hold a message
        // or two. Give the loop one turn before the next batch in that case (with a server store it has turned).
        let turned = false
        const tick = setImmediate(() => { turned = true })
        try { await writeBatch(batch) } finally { clearImmediate(tick); inFlight -= batch.length; wakeSpace() }
        if (!turned && queue.length > 0) await new Promise<void>((resolve) => { setImmediate(resolve) })
      }
    } finally {
      running--
      if (running === 0 && queue.length === 0) while (drainWaiters.length > 0) drainWaiters.shift()?.()
    }
  }

  return {
    async submit (item) {
      while (queue.length + inFlight >= opts.maxPending) await new Promise<void>((resolve) => spaceWaiters.push(resolve))
      const done = new Promise<void>((resolve, reject) => { queue.push({ item, resolve, reject }) })
      enough?.()
      // One writer while the store keeps up; another only once a backlog of half a batch waits, so that parallel
      // writers never turn one big batch into many small ones. loop() settles every item itself and never rejects.
      if (running === 0 || (running < opts.parallel && queue.length >= opts.maxBatch / 2)) loop().catch(() => {})
      return await done
    },
    pending: () => queue.length + inFlight,
    async drain () {
      if (running === 0 && queue.length === 0) return
      await new Promise<void>((resolve) => drainWaiters.push(resolve))
    }
  }
}
