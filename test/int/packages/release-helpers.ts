// Packages for the release tests (docs/packages.md#release-and-publish): ZIPs built with yazl in memory, posted through
// the API, and the operation they start followed to its end.
import { createHash } from 'node:crypto'
import yazl from 'yazl'
import type { Stack } from '../../helpers/stack.js'
import { eventually } from '../../helpers/eventually.js'
import { getOperation, listTasks, type Json, type OperationJson, type TaskJson } from '../../helpers/operations.js'

const NS = 'http://www.sierrawireless.com/airvantage/application/1.0'

export interface Entry { name: string, data: Buffer | string }

export async function zipOf (entries: readonly Entry[]): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const e of entries) zip.addBuffer(Buffer.from(e.data), e.name)
  zip.end()
  const chunks: Buffer[] = []
  for await (const c of zip.outputStream) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

/**
 * A greenhouse controller's model: MQTT, a data tree with a setting and a command, one binary; `binary` names its entry
 * relative to the model's folder, as AirVantage resolves it.
 */
export function greenhouseModel (type: string, revision: string, binary = 'bin/greenhouse.tar.gz', encoding = 'UTF-8'): string {
  return `<?xml version="1.0" encoding="${encoding}"?>
<app:application xmlns:app="${NS}" type="${type}" name="Serre Nord" revision="${revision}">
  <application-manager use="MQTT_SW"/>
  <capabilities>
    <communication>
      <protocol comm-id="SERIAL" type="MQTT"><parameter name="mqtt-security" value="user-password"/></protocol>
    </communication>
    <dm><action impl="MQTT_SW_INSTALL"/></dm>
    <data>
      <encoding type="MQTT">
        <asset id="greenhouse" default-label="Greenhouse">
          <variable path="temperature" type="double" default-label="Temperature"/>
          <node path="config" default-label="Configuration">
            <setting path="reportPeriodS" type="int" default-label="Report period" default-value="60"/>
          </node>
          <command id="light" default-label="Light"><parameter id="on" type="boolean"/></command>
        </asset>
      </encoding>
    </data>
  </capabilities>
  <binaries><binary file="${binary}" revision="${revision}" type="FULL"/></binaries>
</app:application>
`
}

/** Bytes that do not compress, so that the stored binary is what the test sent. */
export const binaryBytes = (n: number, seed: string): Buffer => {
  const out = Buffer.alloc(n)
  for (let i = 0, block = 0; i < n; block++) {
    const h = createHash('sha256').update(`${seed}:${block}`).digest()
    i += h.copy(out, i)
  }
  return out
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex')
export const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex')

/** A package of one greenhouse model and its binary. */
export async function greenhousePackage (type: string, revision: string, binary = binaryBytes(50_000, type + revision)): Promise<Buffer> {
  return await zipOf([{ name: `models/${type}.app`, data: greenhouseModel(type, revision) }, { name: 'models/bin/greenhouse.tar.gz', data: binary }])
}

/** POST /api/v1/operations/applications/release with these bytes (inject), as `contentType` (none when null). */
export async function postRelease (stack: Stack, bytes: Buffer, contentType: string | null = 'application/zip', token = stack.adminToken) {
  return await stack.call(token, {
    method: 'POST',
    url: '/api/v1/operations/applications/release',
    payload: bytes,
    headers: contentType === null ? {} : { 'content-type': contentType }
  })
}

export interface Released { operation: OperationJson, task: TaskJson }

/** Releases, waits for the operation to finish, answers it and its one task. */
export async function release (stack: Stack, bytes: Buffer, contentType: string | null = 'application/zip', token = stack.adminToken): Promise<Released> {
  const res = await postRelease(stack, bytes, contentType, token)
  if (res.statusCode !== 200) throw new Error(`release answered ${res.statusCode} ${res.body}`)
  return await finished(stack, (res.json() as { operation: string }).operation, token)
}

export async function finished (stack: Stack, uid: string, token = stack.adminToken): Promise<Released> {
  const operation = await eventually(async () => {
    const op = await getOperation(stack, uid, token)
    return op.state === 'FINISHED' ? op : undefined
  }, { timeoutMs: 10_000, intervalMs: 25, what: `operation ${uid} FINISHED` })
  const tasks = await listTasks(stack, uid, {}, token)
  if (tasks.items.length !== 1) throw new Error(`the operation has ${tasks.items.length} tasks`)
  return { operation, task: tasks.items[0] as TaskJson }
}

/** The company's applications of this type (GET /applications?type=). */
export async function applicationsOfType (stack: Stack, type: string, token = stack.adminToken): Promise<Json[]> {
  const res = await stack.call(token, { method: 'GET', url: `/api/v1/applications?type=${encodeURIComponent(type)}` })
  if (res.statusCode !== 200) throw new Error(`find answered ${res.statusCode} ${res.body}`)
  return (res.json() as { items: Json[] }).items.filter((a) => a.type === type)
}
