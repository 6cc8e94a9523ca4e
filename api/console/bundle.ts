// The web console's bundle (issue 15): console/src/main.ts and everything it imports (its CSS, uPlot, the world
// atlas) bundled by esbuild in memory, so `npm start` serves a working console with no build step and nothing from
// a CDN.
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

export interface ConsoleBundle {
  /** The files served under /console/ by name: app.js, app.css. */
  files: Map<string, { body: Buffer, type: string }>
}

const ENTRY = fileURLToPath(new URL('../../console/src/main.ts', import.meta.url))

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8'
}

/** Bundles the console; @throws esbuild's error (with the failing file and line) when a source does not build. */
export async function bundleConsole (): Promise<ConsoleBundle> {
  const result = await build({
    entryPoints: { app: ENTRY },
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    minify: true,
    sourcemap: 'linked',
    outdir: '/console',
    loader: { '.json': 'json', '.svg': 'dataurl', '.png': 'dataurl', '.woff2': 'dataurl' },
    logLevel: 'silent',
    legalComments: 'linked'
  })
  const files = new Map<string, { body: Buffer, type: string }>()
  for (const out of result.outputFiles) {
    const name = out.path.slice(out.path.lastIndexOf('/') + 1)
    const ext = name.slice(name.lastIndexOf('.') + 1)
    files.set(name, { body: Buffer.from(out.contents), type: TYPES[ext] ?? 'text/plain; charset=utf-8' })
  }
  return { files }
}

let built: Promise<ConsoleBundle> | undefined

/**
 * The bundle, built once per process on first use and shared by every API instance in it (tests start many). A
 * failed build is not kept: the next request tries again.
 */
export async function consoleBundle (): Promise<ConsoleBundle> {
  built ??= bundleConsole()
  try {
    return await built
  } catch (err) {
    built = undefined
    throw err
  }
}
