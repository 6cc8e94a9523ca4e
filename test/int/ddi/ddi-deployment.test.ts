// hawkBit DDI (docs/protocols/ddi.md) over real HTTP: the poll (device traffic; a link only while an install waits),
// the deployment (hashes of the stored bytes, the download link), the feedback that ends the task, configData as the
// system's data, and tasks DDI cannot carry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { createDevice, insertTask, pointsOf, messagesOf, settle, taskState } from '../../helpers/devices.js'
import { getSystem } from '../../helpers/systems.js'
import { controllerOf, ddi, digest, feedback, insertInstall, linkOf } from './ddi-fixtures.js'

let stack: Stack
beforeAll(async () => { stack = await startStack({ listen: true }) })
afterAll(async () => { await stack.close() })

describe('poll', () => {
  it('answers the sleep and no link when nothing waits; the poll is device communication', async () => {
    const d = await createDevice(stack)
    const before = Date.now()
    const poll = await ddi(stack, controllerOf(stack, d), 'GET')
    expect(poll.status).toBe(200)
    expect(poll.body).toEqual({ config: { polling: { sleep: '00:05:00' } } })
    await settle(stack)
    expect(await getSystem(stack, d.uid)).toMatchObject({ commStatus: 'OK' })
    expect((await getSystem(stack, d.uid)).lastCommDate).toBeGreaterThanOrEqual(before)
  })

  it('answers a task DDI cannot carry ERROR at once and offers nothing for it', async () => {
    const d = await createDevice(stack)
    const read = await insertTask(stack, d.uid, { timestamp: 1, read: ['a.b'] }, { protocol: 'DDI' })
    const poll = await ddi(stack, controllerOf(stack, d), 'GET')
    expect(poll.body._links).toBeUndefined()
    expect(await taskState(stack, read)).toMatchObject({ state: 'ERROR', message: 'hawkBit DDI carries software installs only' })
  })
})

describe('deployment and feedback', () => {
  it('offers the install, describes its artifact with the stored bytes\' hashes, keeps offering it while proceeding and ends it OK when closed', async () => {
    const d = await createDevice(stack)
    const c = controllerOf(stack, d)
    const inst = await insertInstall(stack, d.uid)
    const poll = await ddi(stack, c, 'GET')
    const link = linkOf(poll, 'deploymentBase')
    expect(link?.id).toMatch(/^[1-9][0-9]*$/)
    expect(poll.body._links.deploymentBase.href).toBe(`${stack.httpUrl}/ddi/${c.tenant}/controller/v1/${c.id}/deploymentBase/${link?.id}`)
    const dep = await ddi(stack, c, 'GET', link?.path)
    expect(dep.status).toBe(200)
    expect(dep.body).toEqual({
      id: link?.id,
      deployment: {
        download: 'forced',
        update: 'forced',
        chunks: [{
          part: 'os',
          version: '2.1',
          name: 'Gateway firmware',
          artifacts: [{
            filename: inst.file.slice(inst.file.lastIndexOf('/') + 1),
            hashes: { sha1: digest('sha1', inst.bytes), md5: digest('md5', inst.bytes), sha256: digest('sha256', inst.bytes) },
            size: inst.bytes.length,
            _links: { 'download-http': { href: inst.url } }
          }]
        }]
      }
    })
    // The size is a JSON integer, not a string.
    expect(dep.text).toContain(`"size":${inst.bytes.length}`)
    const got = await fetch(inst.url)
    expect(digest('sha1', Buffer.from(await got.arrayBuffer()))).toBe(digest('sha1', inst.bytes))

    const proceeding = await ddi(stack, c, 'POST', `${link?.path}/feedback`, { body: feedback('proceeding', 'none', ['Installing Update Chunk Artifacts.']) })
    expect({ status: proceeding.status, text: proceeding.text }).toEqual({ status: 200, text: '' })
    expect((await taskState(stack, inst.taskUid))?.state).toBe('SENT')
    expect(linkOf(await ddi(stack, c, 'GET'), 'deploymentBase')?.id).toBe(link?.id)

    const closed = await ddi(stack, c, 'POST', `${link?.path}/feedback`, { body: feedback('closed', 'success', ['Update Installed.']) })
    expect(closed.status).toBe(200)
    expect(await taskState(stack, inst.taskUid)).toMatchObject({ state: 'OK', message: 'Update Installed.' })
    expect((await ddi(stack, c, 'GET')).body._links).toBeUndefined()
    // An ended action is no longer described; a late feedback on it still answers 200 and changes nothing.
    expect((await ddi(stack, c, 'GET', link?.path)).status).toBe(404)
    expect((await ddi(stack, c, 'POST', `${link?.path}/feedback`, { body: feedback('closed', 'failure') })).status).toBe(200)
    expect((await taskState(stack, inst.taskUid))?.state).toBe('OK')
  })

  it('closed with failure ends the task ERROR with the details; rejected ends it ERROR, canceled CANCELLED', async () => {
    const d = await createDevice(stack)
    const c = controllerOf(stack, d)
    const failed = await insertInstall(stack, d.uid)
    const first = linkOf(await ddi(stack, c, 'GET'), 'deploymentBase')
    await ddi(stack, c, 'POST', `${first?.path}/feedback`, { body: feedback('closed', 'failure', ['ERROR : Checksum does not match', 'Update Failed.']) })
    expect(await taskState(stack, failed.taskUid)).toMatchObject({ state: 'ERROR', message: 'ERROR : Checksum does not match; Update Failed.' })

    const canceled = await insertInstall(stack, d.uid)
    const second = linkOf(await ddi(stack, c, 'GET'), 'deploymentBase')
    expect(second?.id).not.toBe(first?.id)
    await ddi(stack, c, 'POST', `${second?.path}/feedback`, { body: feedback('canceled', 'none', ['user said no']) })
    expect(await taskState(stack, canceled.taskUid)).toMatchObject({ state: 'CANCELLED', message: 'canceled by the device: user said no' })

    const rejected = await insertInstall(stack, d.uid)
    const third = linkOf(await ddi(stack, c, 'GET'), 'deploymentBase')
    await ddi(stack, c, 'POST', `${third?.path}/feedback`, { body: feedback('rejected', 'none', ['no space left']) })
    expect(await taskState(stack, rejected.taskUid)).toMatchObject({ state: 'ERROR', message: 'rejected by the device: no space left' })
  })

  it('a binary whose bytes are gone ends its task ERROR rather than being described with other hashes', async () => {
    const d = await createDevice(stack)
    const c = controllerOf(stack, d)
    const inst = await insertInstall(stack, d.uid)
    await stack.ctx.artifacts.delete(digest('sha256', inst.bytes))
    const link = linkOf(await ddi(stack, c, 'GET'), 'deploymentBase')
    expect((await ddi(stack, c, 'GET', link?.path)).status).toBe(404)
    expect(await taskState(stack, inst.taskUid)).toMatchObject({ state: 'ERROR', message: `binary ${inst.file} is no longer stored` })
  })

  it('refuses a feedback that is no DDI document with 400 and changes nothing', async () => {
    const d = await createDevice(stack)
    const c = controllerOf(stack, d)
    const inst = await insertInstall(stack, d.uid)
    const link = linkOf(await ddi(stack, c, 'GET'), 'deploymentBase')
    for (const body of ['{', '[]', '{"status": {}}', '{"status": {"execution": "done"}}', feedback('closed', 'maybe'), '{"status": {"execution": "closed", "details": [1]}}']) {
      const res = await ddi(stack, c, 'POST', `${link?.path}/feedback`, { body })
      expect(res.status, body).toBe(400)
    }
    expect((await ddi(stack, c, 'POST', '/deploymentBase/abc/feedback', { body: feedback('closed', 'success') })).status).toBe(404)
    expect((await taskState(stack, inst.taskUid))?.state).toBe('SENT')
  })
})

describe('configData', () => {
  it('stores the attributes as system data ddi.<key> in a DDI message; a malformed body is 400 and stores nothing', async () => {
    const d = await createDevice(stack)
    const c = controllerOf(stack, d)
    const put = await ddi(stack, c, 'PUT', '/configData', { body: JSON.stringify({ id: '', time: '20260101T000000', mode: 'replace', status: { result: { finished: 'success' }, execution: 'closed', details: [''] }, data: { hwRevision: '1.2', 'os.version': 'bookworm' } }) })
    expect({ status: put.status, text: put.text }).toEqual({ status: 200, text: '' })
    expect((await messagesOf(stack, d.uid)).map((m) => m.protocol)).toEqual(['DDI'])
    expect((await pointsOf(stack, d.uid)).map((p) => [p.dataId, p.str])).toEqual([['ddi.hwRevision', '1.2'], ['ddi.os.version', 'bookworm']])
    for (const body of ['nope', '{"data": []}', '{"data": {"a": {"b": 1}}}', '{"mode": "wipe", "data": {}}']) {
      expect((await ddi(stack, c, 'PUT', '/configData', { body })).status, body).toBe(400)
    }
    expect((await messagesOf(stack, d.uid)).length).toBe(1)
  })
})
