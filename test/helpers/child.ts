// Child processes for end-to-end tests of the real CLI (`fleet ...`): spawn with a clean environment, read output
// line by line, wait for a line with a deadline, stop. Every child is killed when the test that started it finishes
// (onTestFinished), whatever the outcome.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { onTestFinished } from 'vitest'
import { buildState } from '../../bin/launch.mjs'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * The command line of `fleet`: the build (dist/bin/fleet.js, which the slow tier's global setup makes current),
 * or the TypeScript through tsx once a source is newer (an edit during the run: what a test runs is what the
 * checkout holds). Not through bin/fleet.mjs, whose choice is tested on its own (test/unit/bin/launch.test.ts) and
 * whose note on stderr a test would read.
 */
export function fleetCommand (): string[] {
  return buildState(ROOT).build === 'current'
    ? [join(ROOT, 'dist/bin/fleet.js')]
    : ['--import', 'tsx', join(ROOT, 'bin/fleet.ts')]
}

export interface Exit { code: number | null, signal: NodeJS.Signals | null }

export interface Child {
  proc: ChildProcess
  /** Everything written so far. */
  stdout (): string
  stderr (): string
  /** Resolves with the first line of stdout or stderr (past or future) matching re; rejects at the deadline or on exit. */
  waitForLine (re: RegExp, timeoutMs?: number): Promise<string>
  /** Resolves when the process has exited (at once if it has). */
  exited (timeoutMs?: number): Promise<Exit>
  /** Sends a signal if the process still runs. */
  signal (sig: NodeJS.Signals): void
}

interface Waiter { re: RegExp, resolve (line: string): void, reject (err: Error): void }

/**
 * Starts `fleet ...args` (fleetCommand) with only PATH, HOME and env in its environment, so that no variable of the
 * test runner (DATABASE_URL, CI, ...) leaks in. Killed (SIGKILL) when the current test finishes.
 */
export function spawnFleet (args: string[], env: Record<string, string>): Child {
  const proc = spawn(process.execPath, [...fleetCommand(), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const out = { stdout: '', stderr: '' }
  const lines: string[] = []
  const waiters = new Set<Waiter>()
  let exit: Exit | undefined
  const dump = (): string => `--- stdout\n${out.stdout}\n--- stderr\n${out.stderr}`
  const exitPromise = new Promise<Exit>((resolve) => {
    // 'close', not 'exit': the output is complete by then.
    proc.on('close', (code, signal) => {
      exit = { code, signal }
      for (const w of waiters) w.reject(new Error(`process exited (${code ?? signal}) before printing ${w.re}\n${dump()}`))
      waiters.clear()
      resolve(exit)
    })
  })

  for (const stream of ['stdout', 'stderr'] as const) {
    let partial = ''
    proc[stream]?.setEncoding('utf8')
    proc[stream]?.on('data', (chunk: string) => {
      out[stream] += chunk
      const parts = (partial + chunk).split('\n')
      partial = parts.pop() ?? ''
      for (const line of parts) {
        lines.push(line)
        for (const w of waiters) if (w.re.test(line)) { waiters.delete(w); w.resolve(line) }
      }
    })
  }

  onTestFinished(async () => {
    if (exit === undefined) {
      proc.kill('SIGKILL')
      await exitPromise
    }
  })

  return {
    proc,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    async waitForLine (re, timeoutMs = 90_000) {
      const seen = lines.find((l) => re.test(l))
      if (seen !== undefined) return seen
      if (exit !== undefined) throw new Error(`process exited (${exit.code ?? exit.signal}) without printing ${re}\n${dump()}`)
      return await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(`no line matching ${re} within ${timeoutMs} ms\n${dump()}`))
        }, timeoutMs)
        const waiter: Waiter = {
          re,
          resolve: (l) => { clearTimeout(timer); resolve(l) },
          reject: (e) => { clearTimeout(timer); reject(e) }
        }
        waiters.add(waiter)
      })
    },
    async exited (timeoutMs = 90_000) {
      let timer: NodeJS.Timeout | undefined
      const deadline = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => { reject(new Error(`process still running after ${timeoutMs} ms\n${dump()}`)) }, timeoutMs)
      })
      try { return await Promise.race([exitPromise, deadline]) } finally { clearTimeout(timer) }
    },
    signal (sig) { if (exit === undefined) proc.kill(sig) }
  }
}

/** Runs `fleet ...args` to its end and answers its exit code and output. */
export async function runFleet (args: string[], env: Record<string, string>, timeoutMs = 90_000): Promise<Exit & { stdout: string, stderr: string }> {
  const child = spawnFleet(args, env)
  const exit = await child.exited(timeoutMs)
  return { ...exit, stdout: child.stdout(), stderr: child.stderr() }
}

/**
 * A free TCP port below the machine's ephemeral range, for a service a test kills and starts again on the same port
 * (its devices reconnect there). A port of the ephemeral range can be handed meanwhile to any outgoing connection of
 * the machine as its local port, and the restart then finds it in use (seen once in CI); one below the range never
 * is. Falls back to freePort() where the range cannot be read.
 */
export async function restartablePort (): Promise<number> {
  let low: number
  try { low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) } catch { return await freePort() }
  const from = Math.max(1024, low - 12_000)
  if (!Number.isInteger(low) || low - from < 1000) return await freePort()
  for (let i = 0; i < 50; i++) {
    const port = from + Math.floor(Math.random() * (low - from))
    const server = createServer()
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => { resolve(false) })
      server.listen(port, '127.0.0.1', () => { resolve(true) })
    })
    if (ok) { server.close(); await once(server, 'close'); return port }
  }
  return await freePort()
}

/** A TCP port free at the time of asking (listen on 0, read, close), for a child that must print no port. */
export async function freePort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  server.close()
  await once(server, 'close')
  return port
}
