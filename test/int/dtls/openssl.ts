// openssl s_client / s_server as independent DTLS peers: spawned with stdin piped, their output collected, waited on
// by event (a line matching a pattern, or the exit), and killed when the test that started them ends.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { onTestFinished } from 'vitest'

export interface OpensslProcess {
  proc: ChildProcessWithoutNullStreams
  output: () => string
  /** Resolves with the first match of re in stdout + stderr (past or future); rejects on exit or after timeoutMs. */
  waitFor: (re: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>
  exited: () => Promise<number | null>
}

export function openssl (args: string[]): OpensslProcess {
  const proc = spawn('openssl', args, { stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  let exitCode: number | null | undefined
  const listeners = new Set<() => void>()
  const changed = (): void => { for (const l of [...listeners]) l() }
  proc.stdout.on('data', (c: Buffer) => { out += c.toString(); changed() })
  proc.stderr.on('data', (c: Buffer) => { out += c.toString(); changed() })
  proc.on('exit', (code) => { exitCode = code; changed() })
  proc.stdin.on('error', () => {}) // a write after openssl exited
  onTestFinished(() => { if (exitCode === undefined) proc.kill('SIGKILL') })

  const waitFor = async (re: RegExp, timeoutMs = 15_000): Promise<RegExpMatchArray> => await new Promise((resolve, reject) => {
    const check = (): void => {
      const m = out.match(re)
      if (m !== null) done(() => resolve(m))
      else if (exitCode !== undefined) done(() => reject(new Error(`openssl exited (${exitCode}) before ${re}; output:\n${out}`)))
    }
    const timer = setTimeout(() => done(() => reject(new Error(`timed out waiting for ${re}; output:\n${out}`))), timeoutMs)
    const done = (fn: () => void): void => { clearTimeout(timer); listeners.delete(check); fn() }
    listeners.add(check)
    check()
  })
  const exited = async (): Promise<number | null> => await new Promise((resolve) => {
    if (exitCode !== undefined) return resolve(exitCode)
    proc.once('exit', (code) => resolve(code))
  })
  return { proc, output: () => out, waitFor, exited }
}
