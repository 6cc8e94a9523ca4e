// CoRE Link Format (RFC 6690) and what LwM2M registrations say with it (Core TS 1.1 §6.2.1, 1.0 §5.3.1). Vectors:
// the examples of RFC 6690 §5; registration payloads in the forms of the TS (1.0 with objects and instances, an
// alternate root path, 1.1 with `ver` and the root link's `ct`), and the one Leshan stores as a Corelnk value.
import { describe, expect, it } from 'vitest'
import { linkAttribute, parseLinkFormat, parseRegistrationLinks, serializeLinkFormat, type Link } from '../../../protocols/lwm2m/index.js'

function links (text: string): Link[] {
  const d = parseLinkFormat(text)
  if (!d.ok) throw new Error(d.reason)
  return d.links
}

describe('RFC 6690', () => {
  it('§5 example 1: two links with a quoted if', () => {
    expect(links('</sensors/temp>;if="sensor",</sensors/light>;if="sensor"')).toEqual([
      { target: '/sensors/temp', attributes: [{ name: 'if', value: 'sensor', quoted: true }] },
      { target: '/sensors/light', attributes: [{ name: 'if', value: 'sensor', quoted: true }] }
    ])
  })

  it('§5 example 3: ct, titles with spaces, absolute URIs, anchors and rel', () => {
    const text = '</sensors>;ct=40;title="Sensor Index",</sensors/temp>;rt="temperature-c";if="sensor",' +
      '</sensors/light>;rt="light-lux";if="sensor",<http://www.example.com/sensors/t123>;anchor="/sensors/temp"' +
      ';rel="describedby",</t>;anchor="/sensors/temp";rel="alternate"'
    const parsed = links(text)
    expect(parsed.map((l) => l.target)).toEqual(['/sensors', '/sensors/temp', '/sensors/light', 'http://www.example.com/sensors/t123', '/t'])
    expect(linkAttribute(parsed[0]!, 'ct')).toBe('40')
    expect(linkAttribute(parsed[0]!, 'title')).toBe('Sensor Index')
    expect(linkAttribute(parsed[3]!, 'rel')).toBe('describedby')
    expect(serializeLinkFormat(parsed)).toBe(text)
  })

  it('quoted strings hold commas, semicolons and escaped quotes; valueless parameters', () => {
    const parsed = links('</a>;title="x, y; \\"z\\"";obs,</b>')
    expect(parsed[0]?.attributes).toEqual([{ name: 'title', value: 'x, y; "z"', quoted: true }, { name: 'obs' }])
    expect(linkAttribute(parsed[0]!, 'obs')).toBe(true)
    expect(linkAttribute(parsed[1]!, 'obs')).toBeUndefined()
    expect(serializeLinkFormat(parsed)).toBe('</a>;title="x, y; \\"z\\"";obs,</b>')
  })

  it('tolerates whitespace around separators; an empty payload has no link', () => {
    expect(links(' </1/0> ,\n</3/0> ; ver=1.1 ').map((l) => l.target)).toEqual(['/1/0', '/3/0'])
    expect(links('')).toEqual([])
  })

  it('serializes values that are no ptoken quoted, rt quoted by default', () => {
    expect(serializeLinkFormat([{ target: '/', attributes: [{ name: 'rt', value: 'oma.lwm2m' }, { name: 'ct', value: '60 110' }, { name: 'ct2', value: '11543' }] }]))
      .toBe('</>;rt="oma.lwm2m";ct="60 110";ct2=11543')
    expect(serializeLinkFormat([{ target: '/a', attributes: [{ name: 't', value: 'a,b', quoted: false }] }])).toBe('</a>;t="a,b"')
  })

  it('refuses what is not link format', () => {
    for (const bad of ['/1/0', '</1/0', '</1/0>,', '</1/0>;', '</1/0>;="x"', '</1/0>;a="x', '</1 0>', '</1/0>x', '</1/0>;a=', '</a>;b=c,,</d>']) {
      expect(parseLinkFormat(bad), bad).toEqual({ ok: false, reason: 'lwm2m.link.invalid' })
    }
    expect(parseLinkFormat(Buffer.from([0x3c, 0xff, 0x3e]))).toEqual({ ok: false, reason: 'lwm2m.link.invalid' })
    expect(parseLinkFormat('</a>,'.repeat(10_001) + '</a>')).toEqual({ ok: false, reason: 'lwm2m.link.too.many' })
    expect(parseLinkFormat('</a>;t="' + 'x'.repeat(1024 * 1024) + '"')).toEqual({ ok: false, reason: 'lwm2m.link.too.large' })
  })
})

describe('registration links', () => {
  const registration = (text: string) => {
    const d = parseRegistrationLinks(text)
    if (!d.ok) throw new Error(d.reason)
    return d.registration
  }

  it('LwM2M 1.0: objects and instances, an object without instance, versions 1.0 by default', () => {
    expect(registration('</1/0>,</1/1>,</2/0>,</2/1>,</2/2>,</2/3>,</2/4>,</3/0>,</4/0>,</5>')).toEqual({
      rootPath: '/',
      contentFormats: [],
      objects: [
        { objectId: 1, version: '1.0', instances: [0, 1] },
        { objectId: 2, version: '1.0', instances: [0, 1, 2, 3, 4] },
        { objectId: 3, version: '1.0', instances: [0] },
        { objectId: 4, version: '1.0', instances: [0] },
        { objectId: 5, version: '1.0', instances: [] }
      ],
      ignored: []
    })
  })

  it('LwM2M 1.0 with JSON advertised: </>;rt="oma.lwm2m";ct=11543', () => {
    const reg = registration('</>;rt="oma.lwm2m";ct=11543,</1/101>,</3/0>')
    expect(reg.contentFormats).toEqual([11543])
    expect(reg.objects.map((o) => o.objectId)).toEqual([1, 3])
  })

  it('an alternate root path: object links under it, others ignored', () => {
    const reg = registration('</lwm2m>;rt="oma.lwm2m",</lwm2m/1/101>,</lwm2m/1/102>,</lwm2m/2/0>,</lwm2m/3/0>,</other/5>,</5/0>')
    expect(reg.rootPath).toBe('/lwm2m')
    expect(reg.objects).toEqual([
      { objectId: 1, version: '1.0', instances: [101, 102] },
      { objectId: 2, version: '1.0', instances: [0] },
      { objectId: 3, version: '1.0', instances: [0] }
    ])
    expect(reg.ignored).toEqual(['/other/5', '/5/0'])
  })

  it('LwM2M 1.1: object versions, the content formats of the root link, the Security object and resources left out', () => {
    const reg = registration('</>;rt="oma.lwm2m";ct="60 110 112 1542 1543 11542 11543",</0/0>,</1>;ver=1.1,</1/0>,</2>,' +
      '</3>;ver=1.1,</3/0>,</3442/0>,</3/0/1>,</5>;ver=bad')
    expect(reg.contentFormats).toEqual([60, 110, 112, 1542, 1543, 11542, 11543])
    expect(reg.objects).toEqual([
      { objectId: 1, version: '1.1', instances: [0] },
      { objectId: 2, version: '1.0', instances: [] },
      { objectId: 3, version: '1.1', instances: [0] },
      { objectId: 5, version: '1.0', instances: [] },
      { objectId: 3442, version: '1.0', instances: [0] }
    ])
    expect(reg.ignored).toEqual(['/0/0', '/3/0/1'])
  })

  it('refuses a payload that is not link format', () => {
    expect(parseRegistrationLinks('</1/0>,</3/0')).toEqual({ ok: false, reason: 'lwm2m.link.invalid' })
  })
})
