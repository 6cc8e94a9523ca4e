// The web console's bundle (docs/console.md): console/src/main.ts and everything it imports (its CSS, uPlot,
// the world atlas) bundled by esbuild, so the service serves a working console with nothing from a CDN. Built once
// by `npm run build` into dist/console (scripts/build.mjs), or in memory when the service runs from its TypeScript
// (docs/decisions/0014-a-build.md). esbuild is a development dependency: imported only when a bundle is made.
import type { BuildOptions } from 'esbuild'

export interface ConsoleFile { body: Buffer, type: string }

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  map: 'application/json; charset=utf-8'
}

/** The type a console file is served with, by its extension. */
export function consoleFileType (name: string): string {
  return TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'text/plain; charset=utf-8'
}

function options (entry: string, outdir: string): BuildOptions {
  return {
    entryPoints: { app: entry },
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    minify: true,
    sourcemap: 'linked',
    outdir,
    loader: { '.json': 'json', '.svg': 'dataurl', '.png': 'dataurl', '.woff2': 'dataurl' },
    logLevel: 'silent',
    legalComments: 'linked'
  }
}

/** The console's files by name (app.js, app.css, their maps); @throws esbuild's error (failing file and line). */
export async function bundleConsole (entry: string): Promise<Map<string, ConsoleFile>> {
  const { build } = await import('esbuild')
  const result = await build({ ...options(entry, '/console'), write: false })
  const files = new Map<string, ConsoleFile>()
  for (const out of result.outputFiles) {
    const name = out.path.slice(out.path.lastIndexOf('/') + 1)
    files.set(name, { body: Buffer.from(out.contents), type: consoleFileType(name) })
  }
  return files
}

/** Writes the same files into outdir (the build's dist/console). */
export async function writeConsoleBundle (entry: string, outdir: string): Promise<void> {
  const { build } = await import('esbuild')
  await build({ ...options(entry, outdir), write: true })
}
