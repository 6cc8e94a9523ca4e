// The application package of the campaign benchmark (docs/packages.md): a ZIP of one MQTT_SW model and one binary of
// the size asked, built in memory with yazl, then released and published through the API as a user would, each
// operation followed to FINISHED. Answers the application's uid, ready to install.
import { randomBytes } from 'node:crypto'
import yazl from 'yazl'
import { followOperation, type Api } from './campaign-api.js'

const NS = 'http://www.sierrawireless.com/airvantage/application/1.0'

function model (type: string, revision: string, binary: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<app:application xmlns:app="${NS}" type="${type}" name="Campaign bench" revision="${revision}">
  <capabilities>
    <communication><protocol comm-id="SERIAL" type="MQTT"/></communication>
    <dm><action impl="MQTT_SW_INSTALL"/></dm>
  </capabilities>
  <application-manager use="MQTT_SW"/>
  <binaries><binary file="${binary}" revision="${revision}" type="FULL"/></binaries>
</app:application>
`
}

/** A ZIP holding the model and `bytes` random bytes (they do not compress: the stored binary is that size). */
export async function campaignZip (type: string, revision: string, bytes: number): Promise<Buffer> {
  const binary = `${type}-${revision}.bin`
  const zip = new yazl.ZipFile()
  zip.addBuffer(Buffer.from(model(type, revision, binary)), 'model.app')
  zip.addBuffer(randomBytes(bytes), binary, { compress: false })
  zip.end()
  const chunks: Buffer[] = []
  for await (const c of zip.outputStream) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

async function post (api: Api, path: string, body: Buffer | string, contentType: string): Promise<string> {
  const res = await fetch(`${api.origin}/api/v1/operations/${path}`, { method: 'POST', headers: { ...api.headers, 'content-type': contentType }, body })
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`)
  return (await res.json() as { operation: string }).operation
}

/** Releases and publishes a package of one binary of `bytes`; answers the application's uid. */
export async function releasePackage (api: Api, type: string, revision: string, bytes: number): Promise<string> {
  const zip = await campaignZip(type, revision, bytes)
  const release = await followOperation(api, await post(api, 'applications/release', zip, 'application/zip'))
  if (release.counters.find((c) => c.state === 'SUCCESS')?.count !== 1) throw new Error(`release: ${JSON.stringify(release)}`)
  const res = await fetch(`${api.origin}/api/v1/applications?type=${encodeURIComponent(type)}&revision=${encodeURIComponent(revision)}&fields=uid`, { headers: api.headers })
  const uid = (await res.json() as { items: Array<{ uid: string }> }).items[0]?.uid
  if (uid === undefined) throw new Error(`release: no application ${type} ${revision}`)
  const publish = await followOperation(api, await post(api, 'applications/publish', JSON.stringify({ application: uid }), 'application/json'))
  if (publish.counters.find((c) => c.state === 'SUCCESS')?.count !== 1) throw new Error(`publish: ${JSON.stringify(publish)}`)
  return uid
}
