// The content-format numbers and the format a Write uses.
import { describe, expect, it } from 'vitest'
import { ContentFormat, MEDIA_TYPES, decodeContent, encodeContent, pickWriteFormat } from '../../../protocols/lwm2m/index.js'

describe('content formats', () => {
  it('numbers the formats as the IANA registry does', () => {
    expect(ContentFormat).toMatchObject({ TEXT: 0, LINK: 40, OPAQUE: 42, CBOR: 60, SENML_JSON: 110, SENML_CBOR: 112, TLV: 11542, JSON: 11543, TLV_LEGACY: 1542, JSON_LEGACY: 1543 })
    expect(MEDIA_TYPES[11542]).toBe('application/vnd.oma.lwm2m+tlv')
  })

  it('refuses a format it does not know, and a payload over the bound', () => {
    expect(decodeContent(50, Buffer.from('{}'), null)).toEqual({ ok: false, reason: 'lwm2m.content.format.unknown' })
    expect(encodeContent(50, [{ path: { objectId: 1, instanceId: 0, resourceId: 1 }, value: 1 }])).toEqual({ ok: false, reason: 'lwm2m.content.format.unknown' })
    expect(decodeContent(11542, Buffer.alloc(1024 * 1024 + 1), { objectId: 3 })).toEqual({ ok: false, reason: 'lwm2m.content.too.large' })
    expect(encodeContent(11542, [])).toEqual({ ok: false, reason: 'lwm2m.encode.empty' })
  })

  it('picks TLV for 1.0; SenML CBOR, else TLV, else SenML JSON for 1.1', () => {
    expect(pickWriteFormat({ version: '1.0' })).toBe(11542)
    expect(pickWriteFormat({ version: '1.0', contentFormats: [11543] })).toBe(11542)
    expect(pickWriteFormat({ version: '1.0', contentFormats: [1542] })).toBe(1542)
    expect(pickWriteFormat({ version: '1.1', contentFormats: [60, 110, 112, 11542, 11543] })).toBe(112)
    expect(pickWriteFormat({ version: '1.1', contentFormats: [110, 11542] })).toBe(11542)
    expect(pickWriteFormat({ version: '1.1', contentFormats: [60, 110] })).toBe(110)
    expect(pickWriteFormat({ version: '1.1' })).toBe(11542)
  })

  it('refuses writes that mix objects or repeat a path', () => {
    const at = (o: number, i: number, r: number, ri?: number) => ({ objectId: o, instanceId: i, resourceId: r, ...(ri === undefined ? {} : { resourceInstanceId: ri }) })
    expect(encodeContent(112, [{ path: at(1, 0, 1), value: 60 }, { path: at(3, 0, 1), value: 'x' }])).toEqual({ ok: false, reason: 'lwm2m.encode.path.mixed' })
    expect(encodeContent(11542, [{ path: at(1, 0, 1), value: 60 }, { path: at(1, 0, 1), value: 70 }])).toEqual({ ok: false, reason: 'lwm2m.encode.duplicate' })
    expect(encodeContent(110, [{ path: at(3, 0, 7), value: 1 }, { path: at(3, 0, 7, 0), value: 70 }])).toEqual({ ok: false, reason: 'lwm2m.encode.duplicate' })
    expect(encodeContent(11542, [{ path: at(1, 0, 1), value: 60 }], { basePath: { objectId: 3 } })).toEqual({ ok: false, reason: 'lwm2m.encode.path.mixed' })
    expect(encodeContent(11542, [{ path: { objectId: 1, instanceId: 0 }, value: 60 }])).toEqual({ ok: false, reason: 'lwm2m.encode.path.invalid' })
    expect(encodeContent(110, [{ path: at(6, 0, 0), value: Infinity }])).toEqual({ ok: false, reason: 'lwm2m.encode.unrepresentable' })
  })
})
