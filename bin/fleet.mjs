#!/usr/bin/env node
// Launcher of `npx fleet` and `npm start`: runs the build (dist/bin/fleet.js) when it is current. In a checkout whose
// TypeScript is newer than its build, or that has none, it runs the TypeScript through tsx when tsx is installed,
// saying so on stderr (bin/launch.mjs; docs/decisions/0014-a-build.md).
import { fileURLToPath } from 'node:url'
import { buildState, hasTsx } from './launch.mjs'

const root = fileURLToPath(new URL('../', import.meta.url))
const state = buildState(root)
if (state.build === 'current') {
  await import('../dist/bin/fleet.js')
} else if (hasTsx(root)) {
  process.stderr.write(`fleet: ${state.why}: running the TypeScript through tsx (slower to start; npm run build)\n`)
  const { register } = await import('tsx/esm/api')
  register()
  await import('./fleet.ts')
} else if (state.build === 'stale') {
  process.stderr.write(`fleet: ${state.why}, and tsx is not installed: running the older build\n`)
  await import('../dist/bin/fleet.js')
} else {
  process.stderr.write(`fleet: ${state.why}, and tsx (a development dependency) is not installed: run npm run build\n`)
  process.exitCode = 1
}
