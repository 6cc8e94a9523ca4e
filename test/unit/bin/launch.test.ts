// bin/fleet.mjs's choice between the build and the TypeScript (bin/launch.mjs), on checkouts made in a temporary
// folder: dist/.built lists the sources, and a source newer than it makes the build stale.
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { buildState, hasTsx } from '../../../bin/launch.mjs'

const dirs: string[] = []
afterEach(async () => { await Promise.all(dirs.splice(0).map(async (d) => { await rm(d, { recursive: true, force: true }) })) })

const at = (s: number): Date => new Date(Date.UTC(2026, 0, 1, 0, 0, s))

/** A checkout with core/a.ts and console/src/main.ts written at second `source`, and a build made at second `built`. */
async function checkout (source: number, built: number | undefined): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'fleet-launch-'))
  dirs.push(root)
  for (const file of ['core/domain/a.ts', 'console/src/main.ts', 'tsconfig.json']) {
    await mkdir(join(root, file, '..'), { recursive: true })
    await writeFile(join(root, file), '')
    await utimes(join(root, file), at(source), at(source))
  }
  if (built !== undefined) {
    await mkdir(join(root, 'dist'))
    await writeFile(join(root, 'dist/.built'), JSON.stringify({ sources: ['core', 'bin', 'console/src'], files: ['tsconfig.json'] }))
    await utimes(join(root, 'dist/.built'), at(built), at(built))
  }
  return root
}

describe('bin/fleet.mjs: the build or the TypeScript', () => {
  it('runs the build when no source is newer than it, and says why not otherwise', async () => {
    expect(buildState(await checkout(1, 2))).toEqual({ build: 'current' })
    expect(buildState(await checkout(2, 2))).toEqual({ build: 'current' })
    expect(buildState(await checkout(3, 2))).toEqual({ build: 'stale', why: 'core is newer than dist/' })
    expect(buildState(await checkout(1, undefined))).toEqual({ build: 'none', why: 'dist/ holds no build' })
  })

  it('finds a newer file deep in a folder, the console\'s sources and the compiler settings included', async () => {
    const root = await checkout(1, 2)
    await utimes(join(root, 'console/src/main.ts'), at(3), at(3))
    expect(buildState(root)).toMatchObject({ build: 'stale', why: 'console/src is newer than dist/' })
    await utimes(join(root, 'console/src/main.ts'), at(1), at(1))
    await utimes(join(root, 'tsconfig.json'), at(3), at(3))
    expect(buildState(root)).toMatchObject({ build: 'stale', why: 'tsconfig.json is newer than dist/' })
  })

  it('runs the build where the sources are absent (an image holding dist/ and the launcher only)', async () => {
    const root = await checkout(3, 2)
    await rm(join(root, 'core'), { recursive: true })
    await rm(join(root, 'console'), { recursive: true })
    await rm(join(root, 'tsconfig.json'))
    await mkdir(join(root, 'bin'))
    for (const file of ['bin/fleet.mjs', 'bin/launch.mjs']) {
      await writeFile(join(root, file), '')
      await utimes(join(root, file), at(3), at(3))
    }
    expect(buildState(root)).toEqual({ build: 'current' })
    await writeFile(join(root, 'bin/fleet.ts'), '')
    expect(buildState(root)).toMatchObject({ build: 'stale', why: 'bin is newer than dist/' })
  })

  it('knows whether tsx is installed', async () => {
    expect(hasTsx(fileURLToPath(new URL('../../../', import.meta.url)))).toBe(true)
    expect(hasTsx(await checkout(1, 2))).toBe(false)
  })
})
