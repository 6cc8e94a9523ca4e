// A benchmark's client process (a TypeScript file run through tsx) given one JSON argument, answering one JSON
// line on stdout per result: bench ingest's and bench cluster's devices, bench tls's handshake clients. Both sides.
import { spawn } from 'node:child_process'

/** Runs `script` with `input`; answers its results in order, each also passed to onResult as it comes. */
export async function runJsonLinesChild<T> (script: string, input: unknown, onResult: (r: T) => void = () => {}): Promise<T[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(input)], { stdio: ['ignore', 'pipe', 'inherit'] })
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
 * The client process's side: its JSON argument's targets run in turn, each result written as one line. Without the
 * argument (run on its own), `usage` is printed and the process exits 2.
 */
export async function answerTargets<I extends { targets: readonly unknown[] }, R> (usage: string, run: (target: I['targets'][number], input: I) => Promise<R>): Promise<void> {
  const arg = process.argv[2]
  if (arg === undefined) {
    console.error(usage)
    process.exit(2)
  }
  const input = JSON.parse(arg) as I
  for (const target of input.targets) process.stdout.write(JSON.stringify(await run(target, input)) + '\n')
}
