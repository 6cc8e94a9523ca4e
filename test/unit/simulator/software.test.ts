// The pieces of a simulated device's software tasks that need no socket (simulator/README.md "Software"): the Manifest's
// Lua table, the update package read block by block however the bytes are cut, the installed applications, the
// limiter's order, the M3DA SoftwareUpdate as a task and its Response codes, and the command line's flags.
import { describe, expect, it } from 'vitest'
import { parseSimulateArgs, progressLine, UsageError, type SimulateDefaults } from '../../../simulator/cli.js'
import { installedApplications } from '../../../simulator/devices/installed.js'
import { failsTasks, softwareOf } from '../../../simulator/fleet.js'
import { createLimiter } from '../../../simulator/devices/limiter.js'
import { LuaSyntaxError, parseLuaTable } from '../../../simulator/devices/lua-table.js'
import { isSoftwareTask, runSoftwareTask } from '../../../simulator/devices/software.js'
import { updatePackageReader } from '../../../simulator/devices/update-package.js'
import { responsesOf, tasksOf } from '../../../simulator/transports/m3da-objects.js'
import { tarOf, updatePackage } from './tar.js'

describe('the Manifest (a Lua table)', () => {
  it('named, bracketed and positional fields, both quotes, numbers, booleans, nil, comments, a leading return', () => {
    const t = parseLuaTable(`return { -- a comment
      version = "1.2", ['quoted key'] = 'it\\'s', n = -3.5e1, yes = true, none = nil;
      components = { { name = "a" }, "loose" },
    }`)
    expect(Object.fromEntries([...t.fields].filter(([k]) => k !== 'components'))).toEqual({ version: '1.2', 'quoted key': "it's", n: -35, yes: true, none: null })
    const list = t.fields.get('components') as ReturnType<typeof parseLuaTable>
    expect(list.items[1]).toBe('loose')
    expect((list.items[0] as ReturnType<typeof parseLuaTable>).fields.get('name')).toBe('a')
  })

  it.each(['', 'x = 1', '{ version = }', '{ "open', '{ a = 1 } trailing', '{ a = 1 b = 2 }', '{ a = os.exit() }'])('refuses %j with where it stands', (text) => {
    expect(() => parseLuaTable(text)).toThrow(LuaSyntaxError)
  })
})

describe('the update package, read as it passes', () => {
  const pkg = updatePackage([{ name: 'app', version: '2.0' }, { name: 'old' }], Buffer.alloc(3000, 7))

  it.each([1, 7, 511, 512, 513, 4096, pkg.length])('cut in pieces of %i bytes: the Manifest\'s components', (step) => {
    const r = updatePackageReader()
    r.start()
    for (let i = 0; i < pkg.length; i += step) r.write(pkg.subarray(i, i + step))
    expect(r.result()).toEqual({ ok: true, version: '1.0', components: [{ name: 'app', version: '2.0' }, { name: 'old', version: undefined }] })
  })

  it('start() forgets what came before (a download that starts over)', () => {
    const r = updatePackageReader()
    r.start()
    r.write(Buffer.from('garbage that is no tar header at all'.repeat(20)))
    r.start()
    r.write(pkg)
    expect(r.result().ok).toBe(true)
  })

  it.each([
    ['bytes that are no tar', Buffer.from('x'.repeat(2048)), /^not a tar archive/],
    ['a tar without a Manifest', tarOf([{ name: 'app/x', content: 'x' }]), /^no Manifest at the root/],
    ['a Manifest in a folder only', tarOf([{ name: 'sub/Manifest', content: '{components = {}}' }]), /^no Manifest at the root/],
    ['a Manifest that is no table', tarOf([{ name: 'Manifest', content: 'print("hi")' }]), /^the Manifest is no Lua table/],
    ['a Manifest without components', tarOf([{ name: 'Manifest', content: '{version = "1"}' }]), /lists no components/],
    ['a component without a name', tarOf([{ name: 'Manifest', content: '{components = {{version = "1"}}}' }]), /has no name/],
    ['a Manifest over 64 KiB', tarOf([{ name: 'Manifest', content: `{components = {}} --${'x'.repeat(70_000)}` }]), /over 65536 bytes/]
  ])('%s: refused with why', (_what, bytes, message) => {
    const r = updatePackageReader()
    r.start()
    r.write(bytes)
    const got = r.result()
    expect(got.ok).toBe(false)
    expect(got.ok ? '' : got.message).toMatch(message)
  })
})

describe('installed applications', () => {
  it('one revision per type; uninstall, start and stop only what it has', () => {
    const apps = installedApplications()
    apps.install('a', '1.0')
    apps.install('a', '2.0')
    apps.install('b', '1.0')
    expect(apps.list()).toEqual([{ type: 'a', revision: '2.0', running: true }, { type: 'b', revision: '1.0', running: true }])
    expect(apps.setRunning('a', '1.0', false)).toBe(false)
    expect(apps.setRunning('a', '2.0', false)).toBe(true)
    expect(apps.uninstall('b', '2.0')).toBe(false)
    expect(apps.uninstall('b', '1.0')).toBe(true)
    expect(apps.list()).toEqual([{ type: 'a', revision: '2.0', running: false }])
  })

  it('swuninstall, swstart, swstop: OK for what it has, ERROR naming what it lacks', async () => {
    const apps = installedApplications([{ type: 'a', revision: '1.0', running: true }])
    const head = { uid: 'u', timestamp: 0 }
    expect(await runSoftwareTask({ ...head, swstop: { type: 'a', revision: '1.0' } }, apps)).toEqual({ uid: 'u', status: 'OK', message: null })
    expect(apps.list()[0]?.running).toBe(false)
    expect(await runSoftwareTask({ ...head, swstart: { type: 'a', revision: '2.0' } }, apps)).toEqual({ uid: 'u', status: 'ERROR', message: 'a 2.0 is not installed' })
    expect(await runSoftwareTask({ ...head, swuninstall: { type: 'a', revision: '1.0' } }, apps)).toMatchObject({ status: 'OK' })
    expect(apps.list()).toEqual([])
  })
})

describe('the limiter', () => {
  it('runs at most its slots at once, the others in the order they came', async () => {
    const limiter = createLimiter(2)
    const order: number[] = []
    // Each run says when it started and ends when its gate opens.
    const deferred = (): { promise: Promise<void>, resolve: () => void } => {
      let open = (): void => {}
      const promise = new Promise<void>((resolve) => { open = resolve })
      return { promise, resolve: () => { open() } }
    }
    const gates = Array.from({ length: 4 }, deferred)
    const started = Array.from({ length: 4 }, deferred)
    const runs = gates.map(async (g, i) => await limiter.run(async () => { order.push(i); started[i]?.resolve(); await g.promise }))
    await Promise.all([started[0]?.promise, started[1]?.promise])
    expect([limiter.active, limiter.waiting, order]).toEqual([2, 2, [0, 1]])
    gates[1]?.resolve()
    await started[2]?.promise
    expect([limiter.active, limiter.waiting, order]).toEqual([2, 1, [0, 1, 2]])
    for (const g of gates) g.resolve()
    await Promise.all(runs)
    expect([limiter.active, limiter.waiting, order]).toEqual([0, 0, [0, 1, 2, 3]])
    expect(() => createLimiter(0)).toThrow(RangeError)
  })
})

describe('M3DA SoftwareUpdate', () => {
  it('becomes a software task with its url and signature; the Response carries the ack\'s update code', () => {
    const body = new Map([['SoftwareUpdate', new Map([['url', Buffer.from('http://h/device/packages/t')], ['signature', Buffer.from('ab12')]])]])
    const [task] = tasksOf([{ kind: 'message', path: '@sys.commands', ticketId: 9, body }], 5)
    expect(task).toEqual({ uid: 'm3da-ticket-9', timestamp: 5, command: { id: 'SoftwareUpdate', params: { url: 'http://h/device/packages/t', signature: 'ab12' } } })
    expect(isSoftwareTask(task!)).toBe(true)
    expect(responsesOf([
      { uid: 'm3da-ticket-9', status: 'ERROR', message: 'bad', code: 553 },
      { uid: 'm3da-ticket-10', status: 'OK', message: null, code: 0 },
      { uid: 'm3da-ticket-11', status: 'ERROR', message: 'plain' }
    ])).toEqual([
      { kind: 'response', ticketId: 9, status: 553, data: 'bad' },
      { kind: 'response', ticketId: 10, status: 0, data: null },
      { kind: 'response', ticketId: 11, status: -1, data: 'plain' }
    ])
  })
})

describe('fleet simulate: the software flags', () => {
  const defaults: SimulateDefaults = { url: 'http://localhost:8080', mqttUrl: 'mqtt://localhost:1883', clientId: 'fleet-cli', clientSecret: 's', email: 'a@b.c', password: 'p' }
  const parse = (...more: string[]): ReturnType<typeof parseSimulateArgs> => parseSimulateArgs(['--devices', '3', '--protocol', 'mqtt', ...more], defaults)

  it('--protocol ddi, with its tenant (DEFAULT unless given)', () => {
    expect(parseSimulateArgs(['--devices', '1', '--protocol', 'ddi'], defaults)).toMatchObject({ protocol: 'ddi', ddiTenant: 'DEFAULT' })
    expect(parseSimulateArgs(['--devices', '1', '--protocol', 'ddi', '--ddi-tenant', 'c0ffee'], defaults)).toMatchObject({ ddiTenant: 'c0ffee' })
  })

  it('defaults, and the values given', () => {
    expect(parse()).toMatchObject({ updateFailureRate: 0, downloadCutRate: 0, downloadConcurrency: 32 })
    expect(parse('--update-failure-rate', '0.25', '--download-cut-rate', '1', '--download-concurrency', '4')).toMatchObject({ updateFailureRate: 0.25, downloadCutRate: 1, downloadConcurrency: 4 })
  })

  it.each([
    [['--update-failure-rate', '1.5'], '--update-failure-rate must be between 0 and 1, got "1.5"'],
    [['--download-cut-rate', '-0.1'], '--download-cut-rate must be a number >= 0, got "-0.1"'],
    [['--download-concurrency', '0'], '--download-concurrency must be at least 1'],
    [['--download-concurrency', '2.5'], '--download-concurrency must be a whole number >= 0, got "2.5"']
  ])('%j is refused', (flags, message) => {
    expect(() => parse(...flags)).toThrow(new UsageError(message))
  })

  it('the progress line counts the downloads in flight and waiting', () => {
    const s = { phase: 'running' as const, devices: 2, registered: 2, connected: 2, messages: 4, points: 8, tasksAnswered: 1, tasksFailed: 0, wakes: 0, errors: 0, lastError: undefined }
    expect(progressLine({ ...s, downloading: 2, downloadsWaiting: 5 }, 1, 3)).toContain('| 2 downloading (5 waiting) |')
    expect(progressLine({ ...s, downloading: 1, downloadsWaiting: 0 }, 1, 3)).toContain('| 1 downloading |')
    expect(progressLine({ ...s, downloading: 0, downloadsWaiting: 0 }, 1, 3)).not.toContain('downloading')
  })
})

describe('the failing share of installs', () => {
  it('round(devices × rate) devices spread as the failure rate\'s, whatever that rate; every device shares the limiter and the cut rate', () => {
    const limiter = createLimiter(3)
    const fleet = Array.from({ length: 20 }, (_, i) => softwareOf(i + 1, { updateFailureRate: 0.25, downloadCutRate: 0.1 }, limiter))
    expect(fleet.flatMap((s, i) => s.failsInstalls === true ? [i + 1] : [])).toEqual(Array.from({ length: 20 }, (_, i) => i + 1).filter((n) => failsTasks(n, 0.25)))
    expect(fleet.filter((s) => s.failsInstalls === true)).toHaveLength(5)
    expect(fleet.every((s) => s.download?.limiter === limiter && s.download.cutRate === 0.1)).toBe(true)
    expect(softwareOf(1, {}, limiter).failsInstalls).toBe(false)
  })
})
