// The console's files as the API serves them under /console/: those `npm run build` bundled into dist/console when
// the service runs its compiled JavaScript, bundled in memory from console/src when it runs its TypeScript (tsx,
// the tests): a console edit shows without a build (docs/decisions/0014-a-build.md).
import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { bundleConsole, consoleFileType, type ConsoleFile } from './bundle-build.js'

export interface ConsoleBundle {
  /** The files served under /console/ by name: app.js, app.css. */
  files: Map<string, ConsoleFile>
}

// This module is dist/api/console/bundle.js in a build, api/console/bundle.ts in the sources.
const COMPILED = import.meta.url.endsWith('.js')

async function readBuilt (): Promise<ConsoleBundle> {
  const dir = fileURLToPath(new URL('../../console/', import.meta.url))
  const files = new Map<string, ConsoleFile>()
  for (const name of await readdir(dir)) files.set(name, { body: await readFile(dir + name), type: consoleFileType(name) })
  return { files }
}

async function load (): Promise<ConsoleBundle> {
  if (COMPILED) return await readBuilt()
  return { files: await bundleConsole(fileURLToPath(new URL('../../console/src/main.ts', import.meta.url))) }
}

let built: Promise<ConsoleBundle> | undefined

/**
 * The bundle, made (or read) once per process on first use and shared by every API instance in it (tests start
 * many). A failure is not kept: the next request tries again.
 */
export async function consoleBundle (): Promise<ConsoleBundle> {
  built ??= load()
  try {
    return await built
  } catch (err) {
    built = undefined
    throw err
  }
}
