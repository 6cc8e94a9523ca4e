// Device login passwords (docs/api.md#systems): an MQTT or REST password under 8 characters, spaces at either end not
// counted, is refused with system.password.too.weak wherever it is set (create, edit, CSV import and bulk edit, the
// seed file), and a refused request changes nothing. An edit that leaves the passwords alone is not judged on them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { seed, uniq } from '../../helpers/factories.js'
import { createSystem, expectError, expectRejected, getSystem, postSystem, putSystem } from '../../helpers/systems.js'
import { EDIT, IMPORT, runCsv } from '../operations/csv/csv-helpers.js'

let stack: Stack
beforeAll(async () => { stack = await startStack() }, 60_000)
afterAll(async () => { await stack.close() })

const WEAK = ['1', 'short12', '   ', '  abc     ', '\tseven7\t']

describe('device passwords', () => {
  it.each(WEAK.flatMap((password) => [['mqtt', password], ['rest', password]]))('refuses a %s password %j on create, writing nothing', async (protocol, password) => {
    const body = await expectRejected(stack, async () => await postSystem(stack, { name: uniq('weak'), communication: { [protocol]: { password } } }), 'system.password.too.weak')
    expect(body.errorParameters).toEqual([`communication.${protocol}.password`, '8'])
  })

  it('accepts 8 characters, spaces inside counted, and an empty password (no login on that protocol)', async () => {
    const s = await createSystem(stack, { name: uniq('ok'), communication: { mqtt: { password: '8 chars!' }, rest: { password: '' } } })
    expect(s.communication).toMatchObject({ mqtt: { password: '8 chars!' }, rest: { password: '' } })
  })

  it('refuses a weak password on edit and keeps the old one; an edit of other fields passes', async () => {
    const s = await createSystem(stack, { name: uniq('edit'), communication: { mqtt: { password: 'good-password' } } })
    expectError(await putSystem(stack, s.uid, { communication: { mqtt: { password: 'abc' } } }), 'system.password.too.weak')
    expect((await getSystem(stack, s.uid)).communication.mqtt).toEqual({ password: 'good-password' })
    expect((await putSystem(stack, s.uid, { name: 'renamed', communication: { rest: { password: 'rest-password' } } })).statusCode).toBe(200)
  })

  it('refuses a weak password in a CSV import or bulk edit row, and in the seed file', async () => {
    const imported = await runCsv(stack, IMPORT, `NAME,MQTT[password],REST[password]\n${uniq('csv')},weak,rest-password\n`)
    expect(imported.tasks.map((t) => t.error?.code)).toEqual(['system.password.too.weak'])
    const s = await createSystem(stack, { name: uniq('bulk'), communication: { rest: { password: 'rest-password' } } })
    const edited = await runCsv(stack, EDIT, `UID,REST[password]\n${s.uid as string},abc\n`)
    expect(edited.tasks.map((t) => t.error?.code)).toEqual(['system.password.too.weak'])
    expect((await getSystem(stack, s.uid)).communication.rest).toEqual({ password: 'rest-password' })
    await expect(seed(stack, { systems: [{ company: 'Test Company', name: uniq('seeded'), communication: { mqtt: { password: 'pw' } } }] })).rejects.toThrow(/system.password.too.weak/)
  })
})
