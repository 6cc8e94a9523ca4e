// Calls to a benchmark's child process over its IPC channel, both sides: the parent asks (`call`), the child answers
// each request by its type with a handler of its own, so that a long run (registering 10,000 devices) and short
// questions (a count, its memory) can be asked of the same child one after another. Used by bench lwm2m's service
// and device processes.
import { fork, type ChildProcess } from 'node:child_process'

interface Request { id: number, type: string, body: unknown }
type Answer = { id: number, ok: true, value: unknown } | { id: number, ok: false, error: string }
/** A message the child sends of its own accord (not an answer): `{ event, ... }`. */
export interface ChildEvent { event: string, [k: string]: unknown }

export interface RpcChild {
  readonly pid: number
  /** Asks the child; resolves with its handler's value. @throws Error with the child's message, or when it exited */
  call: <T>(type: string, body?: unknown) => Promise<T>
  /** Resolves with the child's exit code once it exited. */
  readonly exited: Promise<number | null>
}

/** Forks `main` through tsx; `onEvent` gets what the child sends unasked. */
export function forkRpc (main: string, args: string[], execArgv: string[], onEvent: (e: ChildEvent) => void = () => {}): RpcChild {
  const child: ChildProcess = fork(main, args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const waiting = new Map<number, { resolve: (v: unknown) => void, reject: (e: Error) => void }>()
  let next = 1
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      for (const w of waiting.values()) w.reject(new Error(`${main.split('/').pop() ?? main} exited with ${String(code)}`))
      waiting.clear()
      resolve(code)
    })
  })
  child.on('message', (m: Answer | ChildEvent) => {
    if ('event' in m) { onEvent(m); return }
    const w = waiting.get(m.id)
    if (w === undefined) return
    waiting.delete(m.id)
    if (m.ok) w.resolve(m.value)
    else w.reject(new Error(m.error))
  })
  return {
    pid: child.pid ?? 0,
    exited,
    async call<T> (type: string, body?: unknown): Promise<T> {
      if (child.exitCode !== null || !child.connected) throw new Error(`${main.split('/').pop() ?? main} has exited`)
      const id = next++
      const answer = new Promise<unknown>((resolve, reject) => { waiting.set(id, { resolve, reject }) })
      child.send({ id, type, body } satisfies Request)
      return await answer as T
    }
  }
}

export type Handlers = Record<string, (body: never) => Promise<unknown>>

/**
 * The child's side: each request goes to the handler of its type; after answering a request of a type in `exitAfter`
 * (its `close`), the child exits once the answer has left. The parent gone, the child exits.
 */
export function serveRpc (name: string, handlers: Handlers, exitAfter: readonly string[] = ['close']): void {
  if (process.send === undefined) {
    console.error(`${name} is started by a benchmark (npm run bench -- lwm2m), not on its own.`)
    process.exit(2)
  }
  process.on('message', (m: Request) => {
    const handler = handlers[m.type]
    const answer = handler === undefined ? Promise.reject(new Error(`no handler for ${m.type}`)) : handler(m.body as never)
    const sent = (): void => { if (exitAfter.includes(m.type)) process.exit(0) }
    answer.then(
      (value) => { process.send?.({ id: m.id, ok: true, value: value ?? null } satisfies Answer, sent) },
      (err: unknown) => { process.send?.({ id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies Answer, sent) }
    )
  })
  process.on('disconnect', () => { process.exit(0) })
}

/** The child tells its parent something unasked (progress). */
export function sendEvent (e: ChildEvent): void { process.send?.(e) }
