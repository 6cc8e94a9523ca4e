// POST /api/v1/operations/applications/release (docs/packages.md#release-and-publish): a package posted as its raw
// bytes, whatever the Content-Type, becomes the company's applications when its operation finishes; each refusal is
// the operation's task FAILURE with its code, and nothing is created, no binary kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'node:http'
import { startStack, type Stack } from '../../helpers/stack.js'
import type { Json } from '../../helpers/operations.js'
import { applicationsOfType, binaryBytes, finished, greenhouseModel, greenhousePackage, md5, postRelease, release, sha256, zipOf } from './release-helpers.js'

let stack: Stack

// Small enough that a test sends more without effort, large enough for every package of these tests.
const MAX_RELEASE_BYTES = 1024 * 1024

beforeAll(async () => {
  stack = await startStack({ listen: true, env: { APPLICATION_RELEASE_MAX_BYTES: String(MAX_RELEASE_BYTES) } })
})
afterAll(async () => { await stack.close() })

const binaryRows = async (): Promise<number> => (await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM application_binaries')).rows[0]?.n ?? 0

/** The ZIP with an entry's uncompressed size in the central directory (what the reader trusts first) set to `size`. */
function lyingSize (zip: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(zip)
  const header = Buffer.from('PK\x01\x02', 'latin1')
  for (let at = out.indexOf(header); at >= 0; at = out.indexOf(header, at + 1)) {
    if (out.subarray(at + 46, at + 46 + out.readUInt16LE(at + 28)).toString() === name) {
      out.writeUInt32LE(size, at + 24)
      return out
    }
  }
  throw new Error(`no entry ${name}`)
}

/** Posts the body, expects the release to fail with `code`, and that nothing was created. */
async function expectFailure (body: Buffer, code: string, type = 'failing.app', contentType: string | null = 'application/zip'): Promise<string> {
  const before = await binaryRows()
  const res = await postRelease(stack, body, contentType)
  expect(res.statusCode).toBe(200)
  const { operation, task } = await finished(stack, (res.json() as { operation: string }).operation)
  expect(operation).toMatchObject({ entity: 'APPLICATION', operationType: 'APPLICATION_RELEASE', state: 'FINISHED' })
  expect(task).toMatchObject({ state: 'FAILURE', error: { code } })
  expect(await applicationsOfType(stack, type)).toEqual([])
  expect(await binaryRows()).toBe(before)
  return (task.error as { message: string }).message
}

describe('release', () => {
  it('creates the company\'s application RELEASED from an application/zip body: model, data tree, communication, owner, binary with its digests', async () => {
    const binary = binaryBytes(200_000, 'greenhouse')
    const { operation, task } = await release(stack, await greenhousePackage('com.example.greenhouse', '2.1.0', binary))
    expect(operation).toMatchObject({ entity: 'APPLICATION', operationType: 'APPLICATION_RELEASE', state: 'FINISHED', target: null })
    expect(operation.parameters).toEqual({ size: expect.any(Number), applications: [{ type: 'com.example.greenhouse', revision: '2.1.0', name: 'Serre Nord', entry: 'models/com.example.greenhouse.app' }] })
    expect(task).toMatchObject({ state: 'SUCCESS', system: null, error: null })
    const [app, ...more] = await applicationsOfType(stack, 'com.example.greenhouse')
    expect(more).toEqual([])
    const me = (await stack.call(stack.adminToken, { method: 'GET', url: '/api/v1/users/current' })).json() as Json
    expect(app).toEqual({
      uid: expect.stringMatching(/^[0-9a-f]{32}$/),
      name: 'Serre Nord',
      revision: '2.1.0',
      type: 'com.example.greenhouse',
      category: 'APPLICATION',
      public: false,
      state: 'RELEASED',
      released: expect.any(Number),
      published: null,
      owner: { uid: stack.adminUid, name: me.name },
      applicationManager: 'MQTT_SW',
      communication: [{ type: 'MQTT', commIdType: 'SERIAL', parameters: { 'mqtt-security': 'user-password' } }],
      data: [expect.objectContaining({ id: 'greenhouse', elementType: 'node' })],
      binaries: [{ file: 'models/bin/greenhouse.tar.gz', revision: '2.1.0', type: 'FULL', size: binary.length, sha256: sha256(binary), md5: md5(binary) }]
    })
    const ids = JSON.stringify(app?.data)
    for (const id of ['"temperature"', '"config"', '"reportPeriodS"', '"light"']) expect(ids).toContain(id)
    expect((await stack.call(stack.adminToken, { method: 'GET', url: `/api/v1/applications/${app?.uid as string}` })).json()).toEqual(app)
    // The bytes kept are the binary's, under its SHA-256.
    const chunks: Buffer[] = []
    for await (const c of await stack.ctx.artifacts.open(sha256(binary))) chunks.push(c as Buffer)
    expect(Buffer.concat(chunks).equals(binary)).toBe(true)
  })

  it('reads the ZIP whatever the Content-Type (octet-stream, JSON, none)', async () => {
    for (const [i, type] of [['1', 'application/octet-stream'], ['2', 'application/json'], ['3', null]] as const) {
      const { task } = await release(stack, await greenhousePackage('ct.greenhouse', i), type)
      expect(task).toMatchObject({ state: 'SUCCESS', error: null })
    }
    expect((await applicationsOfType(stack, 'ct.greenhouse')).map((a) => a.revision).sort()).toEqual(['1', '2', '3'])
  })

  it('reads a chunked body without a length over a real connection', async () => {
    const zip = await greenhousePackage('chunked.greenhouse', '1.0')
    const answer = await new Promise<{ status: number, body: string }>((resolve, reject) => {
      const req = request(`${stack.httpUrl}/api/v1/operations/applications/release`, {
        method: 'POST', headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }
      }, (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (d: string) => { body += d }).on('end', () => { resolve({ status: res.statusCode ?? 0, body }) })
      })
      req.on('error', reject)
      // Several chunks, split inside the first four bytes too.
      for (const at of [0, 2, 1000, 20_000]) req.write(zip.subarray(at, [2, 1000, 20_000][[0, 2, 1000, 20_000].indexOf(at)] ?? zip.length))
      req.end()
    })
    expect(answer.status).toBe(200)
    const { task } = await finished(stack, (JSON.parse(answer.body) as { operation: string }).operation)
    expect(task).toMatchObject({ state: 'SUCCESS', error: null })
    expect(await applicationsOfType(stack, 'chunked.greenhouse')).toHaveLength(1)
  })

  it('creates one application per model, in any folder; the same bytes under two names stored once; ISO-8859-1 read as declared', async () => {
    const shared = binaryBytes(10_000, 'shared')
    const zip = await zipOf([
      { name: 'first.app', data: greenhouseModel('two.first', '1', 'first.bin') },
      { name: 'b/c/second.app', data: Buffer.from(greenhouseModel('two.second', '1', 'second.bin', 'ISO-8859-1').replace('Serre Nord', 'Serre Nord é'), 'latin1') },
      { name: 'first.bin', data: shared },
      { name: 'b/c/second.bin', data: shared }
    ])
    const { task } = await release(stack, zip)
    expect(task).toMatchObject({ state: 'SUCCESS', error: null })
    const [first] = await applicationsOfType(stack, 'two.first')
    const [second] = await applicationsOfType(stack, 'two.second')
    expect(second?.name).toBe('Serre Nord é')
    const digests = { revision: '1', type: 'FULL', sha256: sha256(shared), md5: md5(shared), size: shared.length }
    expect(first?.binaries).toEqual([{ file: 'first.bin', ...digests }])
    expect(second?.binaries).toEqual([{ file: 'b/c/second.bin', ...digests }])
  })
})

describe('a release that fails creates nothing', () => {
  it('a body that is not a ZIP, an empty one: application.release.invalid.zip', async () => {
    expect(await expectFailure(Buffer.from('{"name":"not a package"}'), 'application.release.invalid.zip', 'failing.app', 'application/json')).toContain('not a ZIP')
    expect(await expectFailure(Buffer.alloc(0), 'application.release.invalid.zip')).toContain('empty')
    expect(await expectFailure(Buffer.from('PK'), 'application.release.invalid.zip')).toContain('2 bytes')
  })

  it('a ZIP without a model: application.release.no.model', async () => {
    await expectFailure(await zipOf([{ name: 'readme.txt', data: 'nothing to release' }]), 'application.release.no.model')
  })

  it('a model that is not well-formed: application.release.invalid.model naming the entry and the line', async () => {
    const broken = greenhouseModel('failing.app', '1').replace('<dm>', '<dm><unclosed>')
    const message = await expectFailure(await zipOf([{ name: 'apps/broken.app', data: broken }, { name: 'apps/bin/greenhouse.tar.gz', data: 'x' }]), 'application.release.invalid.model')
    expect(message).toContain('apps/broken.app')
    expect(message).toMatch(/line \d+/)
  })

  it('a binary the model names that the ZIP lacks: application.release.missing.binary', async () => {
    await expectFailure(await zipOf([{ name: 'm.app', data: greenhouseModel('failing.app', '1') }]), 'application.release.missing.binary')
  })

  it('a body past APPLICATION_RELEASE_MAX_BYTES: application.release.too.large', async () => {
    const big = await greenhousePackage('failing.app', '1', binaryBytes(MAX_RELEASE_BYTES + 1, 'big'))
    expect(await expectFailure(big, 'application.release.too.large')).toContain(String(MAX_RELEASE_BYTES))
  })

  it('a binary that inflates past its declared size after another was stored: too.large, and the stored one is removed', async () => {
    const first = binaryBytes(30_000, 'stored-then-removed')
    const zip = await zipOf([
      { name: 'a.app', data: greenhouseModel('failing.app', '1', 'a.bin') },
      { name: 'b.app', data: greenhouseModel('failing.other', '1', 'b.bin') },
      { name: 'a.bin', data: first },
      { name: 'b.bin', data: binaryBytes(30_000, 'lying') }
    ])
    await expectFailure(lyingSize(zip, 'b.bin', 1000), 'application.release.too.large')
    expect(await stack.ctx.artifacts.stat(sha256(first))).toBeUndefined()
  })
})
