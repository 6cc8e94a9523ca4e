// protocols/app-package: packages as real clients release them (docs/packages.md#the-package) read into the
// application's model: communication, device-management actions, data tree with its ids, update path, binaries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { flattenData } from '../../../core/domain/application-model.js'
import { openPackage, type OpenedPackage } from '../../../protocols/app-package/index.js'
import { HAWKBIT_FIRMWARE, MIHINI_MODEL, model, MQTT_MODEL } from './models.js'
import { tempFolder, type ZipItem, zipOf } from './zips.js'

let temp: Awaited<ReturnType<typeof tempFolder>>
beforeAll(async () => { temp = await tempFolder() })
afterAll(async () => { await temp.done() })

const opened: OpenedPackage[] = []
afterAll(async () => { for (const p of opened) await p.close() })

async function open (items: ZipItem[]): Promise<OpenedPackage> {
  const r = await openPackage(await temp.write(await zipOf(items)))
  if (!r.ok) throw new Error(`refused: ${r.error.code} ${r.error.message}`)
  opened.push(r.pkg)
  return r.pkg
}

async function text (pkg: OpenedPackage, file: string): Promise<string> {
  let out = ''
  for await (const c of await pkg.binary(file)) out += (c as Buffer).toString()
  return out
}

const ids = (m: { data: Parameters<typeof flattenData>[0] }): string[] => flattenData(m.data).map((d) => d.id)

describe('openPackage: models', () => {
  it('an MQTT application: every part of the model, and its binary streamed', async () => {
    const pkg = await open([{ name: 'model.app', data: MQTT_MODEL }, { name: 'greenhouse-2.1.0.tar.gz', data: 'the tarball', compress: false }])
    expect(pkg.models).toEqual([{
      entry: 'model.app',
      type: 'com.example.greenhouse',
      name: 'Greenhouse',
      revision: '2.1.0',
      category: 'APPLICATION',
      communication: [{ type: 'MQTT', commIdType: 'SERIAL', parameters: { 'mqtt-security': 'user-password' } }],
      dmActions: ['MQTT_SW_INSTALL'],
      data: [{
        id: 'greenhouse',
        label: 'Greenhouse',
        elementType: 'node',
        data: [
          { id: 'temperature', label: 'Temperature (°C)', elementType: 'variable', encoding: 'MQTT', type: 'double' },
          { id: 'door', label: 'Door open', elementType: 'variable', encoding: 'MQTT', type: 'boolean' },
          {
            id: 'config',
            label: 'Configuration',
            elementType: 'node',
            data: [
              { id: 'reportPeriodS', label: 'Report period', elementType: 'setting', encoding: 'MQTT', type: 'int' },
              { id: 'site', label: 'Site', elementType: 'setting', encoding: 'MQTT', type: 'string' }
            ]
          },
          { id: 'light', label: 'Light', elementType: 'command', encoding: 'MQTT', parameters: [{ id: 'on', type: 'boolean' }, { id: 'level', type: 'int' }] }
        ]
      }],
      applicationManager: 'MQTT_SW',
      binaries: [{ file: 'greenhouse-2.1.0.tar.gz', revision: '2.1.0', type: 'FULL' }]
    }])
    expect(await text(pkg, 'greenhouse-2.1.0.tar.gz')).toBe('the tarball')
  })

  it('a Mihini package: M3DA security as the transport reads it (cipher is the encryption, None is none), Mihini ids', async () => {
    const pkg = await open([{ name: 'appmodel.app', data: MIHINI_MODEL }, { name: 'bin.tar', data: 'tar' }])
    const [m] = pkg.models
    expect(m?.communication).toEqual([{ type: 'M3DA', commIdType: 'SERIAL', parameters: { authentication: 'none', cipher: 'none', encryption: 'none' } }])
    expect(ids(m as never)).toEqual(['greenhouse.data.luminosity', 'greenhouse.data.temperatureAlarm', 'greenhouse.data.switchLight'])
    expect(m?.applicationManager).toBe('MIHINI_APPCON')
    expect(m?.binaries).toEqual([{ file: 'bin.tar', revision: null, type: null }])
    expect(await text(pkg, 'bin.tar')).toBe('tar')
  })

  it('a gateway firmware for hawkBit: FIRMWARE by its category attribute; an LWM2M_FW update path is FIRMWARE too', async () => {
    const pkg = await open([{ name: 'firmware.app', data: HAWKBIT_FIRMWARE }, { name: 'images/gateway-5.2.swu', data: 'image' }])
    expect(pkg.models[0]).toMatchObject({ category: 'FIRMWARE', applicationManager: 'HAWKBIT', binaries: [{ file: 'images/gateway-5.2.swu', revision: '5.2', type: 'FULL' }] })
    const lwm2m = await open([{ name: 'fw.app', data: model('<application-manager use="LWM2M_FW"/><binaries><binary file="fw.bin"/></binaries>') }, { name: 'fw.bin', data: 'x' }])
    expect(lwm2m.models[0]?.category).toBe('FIRMWARE')
    const app = await open([{ name: 'a.app', data: model('<application-manager use="LWM2M_SW"/>') }])
    expect(app.models[0]).toMatchObject({ category: 'APPLICATION', applicationManager: 'LWM2M_SW', binaries: [] })
  })

  it('two models in one ZIP, in entry order, each with its binary named from its own folder', async () => {
    const pkg = await open([
      { name: 'b/second.app', data: model('<binaries><binary file="./bin/b.tar"/></binaries>', 'type="b" name="B" revision="2"') },
      { name: 'b/bin/b.tar', data: 'B' },
      { name: 'first.app', data: model('<binaries><binary file="a.tar"/></binaries>', 'type="a" name="A" revision="1"') },
      { name: 'a.tar', data: 'A' }
    ])
    expect(pkg.models.map((m) => [m.entry, m.type, m.binaries[0]?.file])).toEqual([['b/second.app', 'b', 'b/bin/b.tar'], ['first.app', 'a', 'a.tar']])
    expect([await text(pkg, 'b/bin/b.tar'), await text(pkg, 'a.tar')]).toEqual(['B', 'A'])
  })

  it('protocols the service does not speak (OMA-DM) stay out of the communication; their data is kept without encoding', async () => {
    const pkg = await open([{
      name: 'm.app',
      data: model(`<capabilities><communication><protocol comm-id="IMEI" type="OMADM"><parameter name="dtls" value="psk"/></protocol>
        <protocol comm-id="imei" type="MSCI"><parameter name="access" value="snmp"/><parameter name="port" value="161"/></protocol></communication>
        <data><encoding type="OMADM"><asset id="ztp"><setting path="/ztp/endpoint" type="string"/></asset></encoding></data></capabilities>`)
    }])
    expect(pkg.models[0]?.communication).toEqual([{ type: 'MSCI', commIdType: 'IMEI', parameters: { access: 'snmp', port: 161 } }])
    expect(flattenData(pkg.models[0]?.data ?? [])).toEqual([{ id: 'ztp.ztp.endpoint', elementType: 'setting', type: 'string', encoding: null, actionType: null, parameters: [] }])
  })

  it('LWM2M, which the service speaks (docs/protocols/lwm2m.md), is kept with its parameters and its data\'s encoding', async () => {
    const pkg = await open([{
      name: 'm.app',
      data: model(`<capabilities><communication><protocol comm-id="IMEI" type="LWM2M"><parameter name="security" value="none"/></protocol></communication>
        <data><encoding type="LWM2M"><asset id="lwm2m"><variable path="3/0/3" type="string"/></asset></encoding></data></capabilities>`)
    }])
    expect(pkg.models[0]?.communication).toEqual([{ type: 'LWM2M', commIdType: 'IMEI', parameters: { security: 'none' } }])
    expect(flattenData(pkg.models[0]?.data ?? []).map((d) => [d.id, d.encoding])).toEqual([['lwm2m.3.0.3', 'LWM2M']])
  })

  it('paths through the same node, under two encodings, meet in one node', async () => {
    const pkg = await open([{
      name: 'm.app',
      data: model(`<capabilities><data>
        <encoding type="MQTT"><asset id="machine"><node path="sensors/temp"><variable path="value" type="float"/></node></asset></encoding>
        <encoding type="REST"><asset id="machine"><variable path="sensors/temp/unit" type="string"/><variable path="sensors.hum" type="long"/></asset></encoding>
      </data></capabilities>`)
    }])
    const [machine] = pkg.models[0]?.data ?? []
    expect(machine?.data?.map((n) => n.id)).toEqual(['sensors'])
    expect(flattenData(pkg.models[0]?.data ?? []).map((d) => [d.id, d.type, d.encoding])).toEqual([
      ['machine.sensors.temp.value', 'double', 'MQTT'], ['machine.sensors.temp.unit', 'string', 'REST'], ['machine.sensors.hum', 'int', 'REST']
    ])
  })

  it('includes: fragments named from the including file\'s folder, fragments that include fragments', async () => {
    const fragment = (body: string): string => `<?xml version="1.0"?><app:capabilities xmlns:app="http://www.sierrawireless.com/airvantage/application/1.0">${body}</app:capabilities>`
    const pkg = await open([
      { name: 'gw/model.app', data: model('<capabilities><include><file name="data.cp"/><file name="dm/actions.cp"/></include></capabilities>') },
      { name: 'gw/data.cp', data: fragment('<data><encoding type="MQTT"><asset id="gw"><variable path="uptime" type="int"/></asset></encoding></data>') },
      { name: 'gw/dm/actions.cp', data: fragment('<dm><action impl="MQTT_SW_INSTALL"/></dm><include><file name="more.cp"/></include>') },
      { name: 'gw/dm/more.cp', data: fragment('<communication><protocol comm-id="SERIAL" type="MQTT"/></communication>') },
      { name: 'data.cp', data: fragment('<data><encoding type="MQTT"><asset id="wrong"><variable path="x" type="int"/></asset></encoding></data>') }
    ])
    expect(pkg.models[0]).toMatchObject({ dmActions: ['MQTT_SW_INSTALL'], communication: [{ type: 'MQTT', commIdType: 'SERIAL' }] })
    expect(ids(pkg.models[0] as never)).toEqual(['gw.uptime'])
  })

  it('an ISO-8859-1 model is decoded as it declares', async () => {
    const latin1 = Buffer.from(model('<capabilities><data><encoding type="MQTT"><asset id="a" default-label="Température"><variable path="t" type="double" default-label="Degrés"/></asset></encoding></data></capabilities>',
      'type="t" name="Élan" revision="1"', '<?xml version="1.0" encoding="ISO-8859-1"?>'), 'latin1')
    const pkg = await open([{ name: 'm.app', data: latin1 }])
    expect(pkg.models[0]?.name).toBe('Élan')
    expect(pkg.models[0]?.data[0]).toMatchObject({ label: 'Température', data: [{ label: 'Degrés' }] })
  })

  it('files archivers add (macOS resource forks) are not models', async () => {
    const pkg = await open([{ name: 'm.app', data: model('') }, { name: '__MACOSX/._m.app', data: '\x00\x05\x16\x07' }, { name: '._other.app', data: '\x00' }])
    expect(pkg.models.map((m) => m.entry)).toEqual(['m.app'])
  })
})
