// protocols/app-package: every refusal of a package answers its release error code (docs/packages.md#the-package),
// with a message naming the entry (and, for a model, the line) to fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_PACKAGE_LIMITS, openPackage } from '../../../protocols/app-package/index.js'
import type { ReleaseError } from '../../../core/domain/application-package.js'
import { model, MQTT_MODEL } from './models.js'
import { renamed, tempFolder, type ZipItem, zipOf } from './zips.js'

let temp: Awaited<ReturnType<typeof tempFolder>>
beforeAll(async () => { temp = await tempFolder() })
afterAll(async () => { await temp.done() })

async function refusal (bytes: Buffer | string, limits = DEFAULT_PACKAGE_LIMITS): Promise<ReleaseError> {
  const r = await openPackage(await temp.write(bytes), limits)
  if (r.ok) {
    await r.pkg.close()
    throw new Error('the package was accepted')
  }
  return r.error
}
const refusalOf = async (items: ZipItem[], limits = DEFAULT_PACKAGE_LIMITS): Promise<ReleaseError> => await refusal(await zipOf(items), limits)

describe('openPackage: refusals', () => {
  it('not a ZIP: other bytes, a ZIP header over garbage, an empty archive', async () => {
    expect(await refusal('{"application": "x"}')).toMatchObject({ code: 'application.release.invalid.zip', message: expect.stringContaining('not a ZIP') })
    expect((await refusal(Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(64, 7)]))).code).toBe('application.release.invalid.zip')
    expect(await refusal(await zipOf([]))).toMatchObject({ code: 'application.release.invalid.zip' })
  })

  it('no *.app entry', async () => {
    expect(await refusalOf([{ name: 'readme.txt', data: 'hi' }, { name: 'model.xml', data: model('') }])).toMatchObject({ code: 'application.release.no.model' })
  })

  const invalid: Array<[string, string, RegExp]> = [
    ['not well-formed', model('<capabilities>\n<data>\n</capabilities>'), /m\.app, line 5: not well-formed XML/],
    ['another namespace', '<?xml version="1.0"?>\n<app:application xmlns:app="http://example.com/app" type="t" name="n" revision="1"/>', /m\.app, line 2: the root element must be <app:application> in the namespace/],
    ['another root', '<app:capabilities xmlns:app="http://www.sierrawireless.com/airvantage/application/1.0"/>', /m\.app, line 1: the root element must be <app:application>/],
    ['no type', model('', 'name="n" revision="1"'), /m\.app, line 2: <application> needs a non-empty type attribute/],
    ['an empty revision', model('', 'type="t" name="n" revision=" "'), /line 2: <application> needs a non-empty revision attribute/],
    ['an unknown child of the root', model('<capabilities/>\n<firmware/>'), /m\.app, line 4: <app:application> holds <capabilities>, <application-manager> and <binaries>, not <firmware>/],
    ['an unknown child of capabilities', model('<capabilities><alarms/></capabilities>'), /line 3: <capabilities> holds .* not <alarms>/],
    ['an unknown value type', model('<capabilities><data><encoding type="MQTT"><asset id="a">\n<variable path="v" type="quaternion"/></asset></encoding></data></capabilities>'), /line 4: type "quaternion" is none of/],
    ['a leaf declared twice', model('<capabilities><data><encoding type="MQTT"><asset id="a"><variable path="v" type="int"/>\n<setting path="v" type="int"/></asset></encoding></data></capabilities>'), /line 4: "v" is declared twice/],
    ['a variable without path', model('<capabilities><data><encoding type="MQTT"><asset id="a"><variable type="int"/></asset></encoding></data></capabilities>'), /<variable> needs a non-empty path attribute/],
    ['an unknown comm-id', model('<capabilities><communication><protocol comm-id="PHONE" type="MQTT"/></communication></capabilities>'), /line 3: comm-id "PHONE" is none of SERIAL, IMEI/],
    ['a protocol listed twice', model('<capabilities><communication><protocol comm-id="IMEI" type="MQTT"/>\n<protocol comm-id="SERIAL" type="mqtt"/></communication></capabilities>'), /line 4: <protocol type="MQTT">: type MQTT is listed twice/],
    ['a bad M3DA cipher', model('<capabilities><communication><protocol comm-id="SERIAL" type="M3DA"><parameter name="cipher" value="rot13"/></protocol></communication></capabilities>'), /parameters\/encryption must be one of none/],
    ['an unknown category', model('', 'type="t" name="n" revision="1" category="DRIVER"'), /category "DRIVER" is none of APPLICATION, FIRMWARE/],
    ['an unknown encoding', model('', undefined, '<?xml version="1.0" encoding="EBCDIC-US"?>'), /m\.app, line 1: encoding "EBCDIC-US" is not supported/],
    ['a binary outside the package', model('<binaries><binary file="../etc/passwd"/></binaries>'), /binary "..\/etc\/passwd" is not a file of the package/],
    ['an include that is missing', model('<capabilities><include><file name="data.cp"/></include></capabilities>'), /m\.app, line 3: includes "data.cp", which the ZIP does not hold/]
  ]
  it.each(invalid)('an invalid model: %s', async (_what, xml, message) => {
    expect(await refusalOf([{ name: 'm.app', data: xml }])).toEqual({ code: 'application.release.invalid.model', message: expect.stringMatching(message) })
  })

  it('an invalid model: bytes that are not the UTF-8 declared (or implied), with the line', async () => {
    const xml = Buffer.from(model('<capabilities>\n<data><encoding type="MQTT"><asset id="a" default-label="Température"/></encoding></data></capabilities>'), 'latin1')
    expect(await refusalOf([{ name: 'm.app', data: xml }])).toEqual({ code: 'application.release.invalid.model', message: expect.stringMatching(/m\.app, line 4: the bytes are not valid UTF-8/) })
  })

  it('an invalid fragment: named with its own line; a fragment that includes its includer', async () => {
    const cp = (body: string): string => `<?xml version="1.0"?>\n<app:capabilities xmlns:app="http://www.sierrawireless.com/airvantage/application/1.0">\n${body}</app:capabilities>`
    const includes = model('<capabilities><include><file name="a.cp"/></include></capabilities>')
    expect(await refusalOf([{ name: 'm.app', data: includes }, { name: 'a.cp', data: cp('<dm><action/></dm>') }]))
      .toEqual({ code: 'application.release.invalid.model', message: 'a.cp, line 3: <action> needs a non-empty impl attribute' })
    expect(await refusalOf([{ name: 'm.app', data: includes }, { name: 'a.cp', data: cp('<include><file name="b.cp"/></include>') }, { name: 'b.cp', data: cp('<include><file name="a.cp"/></include>') }]))
      .toEqual({ code: 'application.release.invalid.model', message: 'b.cp, line 3: includes "a.cp", which includes the file that includes it' })
    expect(await refusalOf([{ name: 'm.app', data: includes }, { name: 'a.cp', data: model('') }]))
      .toEqual({ code: 'application.release.invalid.model', message: expect.stringMatching(/^a\.cp, line 2: the root of a fragment must be <app:capabilities>/) })
  })

  it('a declared binary missing from the ZIP, named', async () => {
    expect(await refusalOf([{ name: 'model.app', data: MQTT_MODEL }, { name: 'greenhouse-2.1.tar.gz', data: 'near miss' }]))
      .toEqual({ code: 'application.release.missing.binary', message: expect.stringContaining('binary "greenhouse-2.1.0.tar.gz" is not in the ZIP') })
  })

  it('entries with .. segments, absolute paths or drive letters, named', async () => {
    const zip = await zipOf([{ name: 'm.app', data: model('') }, { name: 'xx/evil.sh', data: '#!' }])
    for (const [to, why] of [['../evil.sh', 'invalid relative path: ../evil.sh'], ['/xx/evil.s', 'absolute path: /xx/evil.s'], ['C:/evil.sh', 'absolute path: C:/evil.sh'], ['..\\evil.sh', 'invalid relative path: ../evil.sh']]) {
      expect(await refusal(renamed(zip, 'xx/evil.sh', to as string))).toEqual({ code: 'application.release.invalid.zip', message: expect.stringContaining(why as string) })
    }
  })

  it('symbolic links and other special files, named', async () => {
    expect(await refusalOf([{ name: 'm.app', data: model('') }, { name: 'link', data: '/etc/passwd', mode: 0o120777 }]))
      .toEqual({ code: 'application.release.invalid.zip', message: 'entry "link" is a symbolic link: a package holds files only' })
    expect(await refusalOf([{ name: 'm.app', data: model('') }, { name: 'fifo', data: '', mode: 0o010644 }]))
      .toEqual({ code: 'application.release.invalid.zip', message: 'entry "fifo" is not a file: a package holds files only' })
  })

  it('an entry twice', async () => {
    const zip = await zipOf([{ name: 'm.app', data: model('') }, { name: 'a.bin', data: '1' }, { name: 'b.bin', data: '2' }])
    expect(await refusal(renamed(zip, 'b.bin', 'a.bin'))).toEqual({ code: 'application.release.invalid.zip', message: 'entry "a.bin" appears twice' })
  })
})
