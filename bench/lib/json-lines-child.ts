// A benchmark's client process (a TypeScript file run through tsx) given one JSON document on its stdin, answering
// one JSON line on stdout per result: bench ingest's and bench cluster's devices, bench tls's handshake clients.
// Both sides. Stdin rather than an argument: an argument is limited to 128 KiB (Linux), less than 50 RSA
// certificates with their keys.
import { spawn } from 'node:child_process'
import { text } from 'node:stream/consumers'

/** Runs `script` with `input`; answers its results in order, each also passed to onResult as it comes. */
export async function runJsonLinesChild<T> (script: string, input: unknown, onResult: (r: T) => void = () => {}): Promise<T[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] })
  child.stdin.end(JSON.stringify(input))
  const results: T[] = []
  let partial = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (s: string) => {
    const lines = (partial + s).split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) {
      if (!line.startsWith('{')) continue
      const r = JSON.parse(line) as T
      results.push(r)
      onResult(r)
    }
  })
  const code = await new Promise<number | null>((resolve) => { child.on('close', resolve) })
  if (code !== 0) throw new Error(`${script.split('/').pop() ?? script} exited with ${String(code)}`)
  return results
}

/**
 * The client process's side: the targets of its stdin's JSON document run in turn, each result written as one line.
 * Run on its own (stdin a terminal, or nothing on it), `usage` is printed and the process exits 2.
 */
export async function answerTargets<I extends { targets: readonly unknown[] }, R> (usage: string, run: (target: I['targets'][number], input: I) => Promise<R>): Promise<void> {
  const arg = process.stdin.isTTY ? '' : await text(process.stdin)
  if (arg.trim() === '') {
    console.error(usage)
    process.exit(2)
  }
  const input = JSON.parse(arg) as I
  for (const target of input.targets) process.stdout.write(JSON.stringify(await run(target, input)) + '\n')
}
