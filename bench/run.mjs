#!/usr/bin/env node
// `npm run bench -- <name>` runs bench/<name>.ts through tsx; `npm run bench` lists the benchmarks.
import { spawn } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const [name, ...args] = process.argv.slice(2)

async function list () {
  const files = (await readdir(here)).filter((f) => f.endsWith('.ts')).sort()
  const width = Math.max(...files.map((f) => f.length - 3))
  console.log('Benchmarks (npm run bench -- <name>):')
  for (const f of files) {
    const first = (await readFile(join(here, f), 'utf8')).split('\n').find((l) => l.startsWith('//')) ?? ''
    console.log(`  ${f.slice(0, -3).padEnd(width)}  ${first.replace(/^\/\/\s*/, '')}`)
  }
}

if (name === undefined || name === '--list') {
  await list()
} else {
  const files = await readdir(here)
  if (!files.includes(`${name}.ts`)) {
    console.error(`no benchmark "${name}"`)
    await list()
    process.exit(2)
  }
  // The service's V8 settings as `npm start` gives them (package.json): the ingest and query benchmarks run it in
  // this process.
  const child = spawn(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', join(here, `${name}.ts`), ...args], { stdio: 'inherit' })
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { child.kill(sig) })
  child.on('exit', (code, signal) => { process.exit(code ?? (signal === null ? 1 : 128)) })
}
