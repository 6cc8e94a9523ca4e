#!/usr/bin/env node
// `npm run build` (and `prepare`, so `npm install`/`npm ci` of a clone builds): the service's TypeScript compiled by
// tsc to dist/ (same folders: dist/bin, dist/core...), the files the code reads beside it at run time copied there,
// and the web console bundled by esbuild to dist/console. Why a build, and what still runs through tsx:
// docs/decisions/0014-a-build.md.
//
// The build is made in a folder of its own and renamed to dist/ at the end: a process starting meanwhile finds the
// previous build whole, and two builds at once (two test runs in one checkout) do not write into each other.
//
//   --prepare          (npm's prepare) without typescript installed (`npm ci --omit=dev`), a note and no build
//   --allow-type-errors  a type error is reported but the JavaScript is kept (the tests' build: vitest runs
//                      TypeScript that does not typecheck too; `npm run build` and CI fail on it)
import { spawnSync } from 'node:child_process'
import { copyFile, mkdir, readdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const DIST = join(ROOT, 'dist')
// The sources a build is made of, besides the folders tsconfig.build.json compiles (bin/fleet.mjs reads the list in
// dist/.built to tell a stale build).
const CONSOLE_SRC = 'console/src'
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json']

const args = new Set(process.argv.slice(2))
const require = createRequire(import.meta.url)

function resolveOrUndefined (id) {
  try { return require.resolve(id) } catch { return undefined }
}

/** Every file under dir, as a path relative to it. */
async function walk (dir, base = dir) {
  const out = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...await walk(path, base))
    else if (entry.isFile()) out.push(relative(base, path))
  }
  return out
}

/**
 * The files tsc does not emit that the code reads beside itself (storage/migrations/*.sql through
 * `new URL(..., import.meta.url)`, a protocol's own migrations...): everything under the compiled folders but
 * TypeScript and Markdown. An .mjs beside a .ts of the same name is that file's entry through tsx (a worker thread
 * starts without its parent's loader: storage/pglite-worker.mjs); in dist/ it imports the compiled .js instead.
 */
async function copyAssets (roots, out) {
  for (const root of roots) {
    const files = await walk(join(ROOT, root))
    const names = new Set(files)
    for (const file of files) {
      if (file.endsWith('.ts') || file.endsWith('.d.mts') || file.endsWith('.md')) continue
      const to = join(out, root, file)
      await mkdir(dirname(to), { recursive: true })
      const stem = file.slice(0, -'.mjs'.length)
      if (file.endsWith('.mjs') && names.has(`${stem}.ts`)) {
        const base = stem.slice(stem.lastIndexOf('/') + 1)
        await writeFile(to, `// Written by scripts/build.mjs: ${root}/${file} runs ${base}.ts through tsx; the build runs its compiled JavaScript.\nawait import('./${base}.js')\n`)
      } else {
        await copyFile(join(ROOT, root, file), to)
      }
    }
  }
}

function typescriptCompile (out) {
  const tsc = resolveOrUndefined('typescript/bin/tsc')
  const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', out], { cwd: ROOT, stdio: 'inherit' })
  if (r.status === 0) return
  if (r.status === 2 && args.has('--allow-type-errors')) {
    process.stderr.write('build: type errors above; the JavaScript was emitted and is used (--allow-type-errors)\n')
    return
  }
  throw new Error(`tsc exited with ${r.status ?? r.signal}`)
}

/**
 * Renames the finished build to dist/, the previous one out of the way first. Another build may put its own in place
 * between the two renames: then this one moves that aside too and tries again (whichever ends last is dist/).
 */
async function swapIn (out) {
  for (let attempt = 1; ; attempt++) {
    const old = `${out}-old${attempt}`
    await rename(DIST, old).catch((err) => { if (err.code !== 'ENOENT') throw err })
    try {
      await rename(out, DIST)
      break
    } catch (err) {
      if ((err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') || attempt === 5) throw err
    } finally {
      await rm(old, { recursive: true, force: true })
    }
  }
}

async function build () {
  if (resolveOrUndefined('typescript/bin/tsc') === undefined || resolveOrUndefined('esbuild') === undefined) {
    if (!args.has('--prepare')) throw new Error('typescript and esbuild are needed to build (npm install, with the development dependencies)')
    process.stderr.write('build: skipped, typescript or esbuild is not installed (an install without the development dependencies runs the dist/ it is given)\n')
    return
  }
  // The sources are read from here on: an edit made during the build makes it stale.
  const startedAt = new Date()
  const config = JSON.parse(await readFile(join(ROOT, 'tsconfig.build.json'), 'utf8'))
  const roots = config.include
  const out = join(ROOT, `.dist-${process.pid}-${Date.now()}`)
  try {
    typescriptCompile(out)
    await copyAssets(roots, out)
    const { writeConsoleBundle } = await import(pathToFileURL(join(out, 'api/console/bundle-build.js')).href)
    await writeConsoleBundle(join(ROOT, CONSOLE_SRC, 'main.ts'), join(out, 'console'))
    const stamp = join(out, '.built')
    await writeFile(stamp, JSON.stringify({ sources: [...roots, CONSOLE_SRC], files: CONFIG_FILES }) + '\n')
    await utimes(stamp, startedAt, startedAt)
    await swapIn(out)
  } catch (err) {
    await rm(out, { recursive: true, force: true })
    throw err
  }
}

const t0 = performance.now()
build().then(() => {
  if (!args.has('--quiet')) process.stderr.write(`build: dist/ in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
}, (err) => {
  process.stderr.write(`build: ${err.message}\n`)
  process.exit(1)
})
