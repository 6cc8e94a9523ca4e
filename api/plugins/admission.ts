// Admission control of API requests: at most `limit` are served at once, the others wait in line, and one that finds
// no place within maxWaitMs is turned away (the caller answers 503 with Retry-After) instead of being served late.
//
// Why a line with a deadline rather than a cap alone: under overload, the API's requests spend their time waiting
// for the store (PGlite runs one statement at a time; PostgreSQL has a pool of 10), behind every other request that
// was let in. Serving 200 at once made each of them take seconds (bench load: p50 4.5 s on PGlite). With few in
// the store, each is served in about its own time; the rest wait here, where the wait is bounded and a refusal costs
// nothing.
//
// The limit adapts to how long admitted requests take to be served (additive increase, multiplicative decrease, as
// TCP's window): it grows by one per limit's worth of requests served within targetMs while the limit was what held
// requests back, and shrinks by a quarter when one took longer (once per targetMs, so that the requests admitted
// before a decrease do not count against it again). A fixed number would be right for one machine and one store
// only: the same limit that keeps PostgreSQL's answers fast makes PGlite's slow, and a busy machine halves both.
// A request served alone that took longer does not cut it: it was slow by itself (a big export), not for the others,
// and serving fewer would not make it faster. Routes slower than targetMs on their own still keep the limit low
// when they run beside others: such a deployment raises OVERLOAD_TARGET_MS (docs/monitoring.md).

export interface AdmissionOptions {
  /** Upper bound of the limit: API requests served at once. */
  maxInFlight: number
  /** How long a request may wait for a place; 0: refused at once when every place is taken. */
  maxWaitMs: number
  /** Service time the limit adapts to; 0: the limit is maxInFlight. */
  targetMs: number
  now?: () => number
}

/** Frees the place of an admitted request (once; a second call does nothing). */
export type Release = () => void

/** A place, or why there is none: every place taken and no waiting allowed, or the wait ran out. */
export type Admitted = { release: Release } | { refused: 'in_flight' | 'queue_timeout' }

/** API requests being served, waiting for a place, and the current limit. */
export interface AdmissionStats { inFlight: number, waiting: number, limit: number }

interface Waiter { admit: () => void, timer: NodeJS.Timeout }

export const MIN_LIMIT = 1
/** Where an adaptive limit starts: a few requests at once after a start are not held in line. */
export const INITIAL_LIMIT = 8
const DECREASE = 0.75

export class Admission {
  private limit: number
  private inFlight = 0
  private readonly line: Waiter[] = []
  private lastDecrease = Number.NEGATIVE_INFINITY
  /** Counts the times every place was taken or a request had to wait: whether the limit held anyone back. */
  private saturations = 0
  /** Counts admissions: whether another request was served beside one. */
  private admissions = 0
  private readonly now: () => number

  constructor (private readonly opts: AdmissionOptions) {
    this.now = opts.now ?? (() => performance.now())
    // Adaptive: starts below the most, so that the first burst of an overload is not let in whole.
    this.limit = opts.targetMs > 0 ? Math.min(opts.maxInFlight, INITIAL_LIMIT) : opts.maxInFlight
  }

  stats (): AdmissionStats {
    return { inFlight: this.inFlight, waiting: this.line.length, limit: Math.floor(this.limit) }
  }

  /** A place now, or once one frees up within maxWaitMs; otherwise the refusal. */
  async enter (): Promise<Admitted> {
    if (this.line.length === 0 && this.inFlight < Math.floor(this.limit)) return { release: this.admit() }
    this.saturations++
    if (this.opts.maxWaitMs <= 0) return { refused: 'in_flight' }
    return await new Promise<Admitted>((resolve) => {
      const waiter: Waiter = {
        admit: () => { clearTimeout(waiter.timer); resolve({ release: this.admit() }) },
        timer: setTimeout(() => {
          const i = this.line.indexOf(waiter)
          if (i >= 0) this.line.splice(i, 1)
          resolve({ refused: 'queue_timeout' })
        }, this.opts.maxWaitMs)
      }
      this.line.push(waiter)
    })
  }

  /**
   * A place at once, past the limit if need be, for a request that has already cost its client its wait (a package
   * whose body was read: api/plugins/overload.ts): it is counted, so that the others wait for it, but neither refused
   * nor judged by its service time, which is its size's, not the load's.
   */
  force (): Release { return this.admit(false) }

  private admit (judged = true): Release {
    const seen = this.saturations
    const first = this.inFlight === 0
    const admission = ++this.admissions
    this.inFlight++
    if (this.inFlight >= Math.floor(this.limit)) this.saturations++
    const started = this.now()
    let released = false
    return () => {
      if (released) return
      released = true
      // Did the limit hold requests back while this one was served? Else its speed says nothing of a higher limit.
      const bound = this.saturations !== seen || this.line.length > 0
      this.inFlight--
      // Alone: nobody served when it started, nor let in since.
      if (judged) this.adapt(this.now() - started, bound, first && this.admissions === admission)
      this.next()
    }
  }

  private adapt (servedMs: number, bound: boolean, alone: boolean): void {
    const { targetMs, maxInFlight } = this.opts
    if (targetMs <= 0) return
    const now = this.now()
    if (servedMs > targetMs) {
      if (alone || now - this.lastDecrease < targetMs) return
      this.lastDecrease = now
      this.limit = Math.max(Math.min(MIN_LIMIT, maxInFlight), this.limit * DECREASE)
    } else if (bound) {
      this.limit = Math.min(maxInFlight, this.limit + 1 / this.limit)
    }
  }

  private next (): void {
    // The newest first: under overload every request in line would otherwise be served having waited almost
    // maxWaitMs; this way the one served has waited least, and the oldest, already late, are the ones turned away
    // (a line that never grows is served in order all the same).
    while (this.line.length > 0 && this.inFlight < Math.floor(this.limit)) this.line.pop()?.admit()
  }
}
