// The /rd query of Register and Update (Core TS 1.1 §6.2.1, §6.2.2; 1.0 §5.3.1, §5.3.2).
import { describe, expect, it } from 'vitest'
import { parseRegisterQuery, parseUpdateQuery } from '../../../protocols/lwm2m/index.js'

const reason = (q: string[] | string): string => { const d = parseRegisterQuery(q); return d.ok ? 'accepted' : d.reason }

describe('Register', () => {
  it('fills in the defaults: lifetime 86400, LwM2M 1.0, binding U', () => {
    expect(parseRegisterQuery(['ep=imei:359000000000001'])).toEqual({
      ok: true, query: { endpoint: 'imei:359000000000001', lifetime: 86400, version: '1.0', binding: { transports: ['U'], queue: false } }
    })
  })

  it('reads the CoAP Uri-Query options of a 1.1 client in queue mode, with SMS', () => {
    expect(parseRegisterQuery(['ep=dev-1', 'lt=300', 'lwm2m=1.1', 'b=US', 'Q', 'sms=+33612345678', 'et=tracker', 'd=fleet'])).toEqual({
      ok: true,
      query: { endpoint: 'dev-1', lifetime: 300, version: '1.1', binding: { transports: ['U', 'S'], queue: true }, smsNumber: '+33612345678', endpointType: 'tracker', domain: 'fleet' }
    })
  })

  it('reads a query string, percent-decoded; 1.0 queue mode in b', () => {
    const d = parseRegisterQuery('?ep=my%20dev&lt=60&b=UQ')
    expect(d.ok && d.query).toMatchObject({ endpoint: 'my dev', lifetime: 60, binding: { transports: ['U'], queue: true } })
    expect(parseRegisterQuery(['ep=a', 'b=UQS'])).toMatchObject({ query: { binding: { transports: ['U', 'S'], queue: true } } })
    expect(parseRegisterQuery(['ep=a', 'lwm2m=1.1', 'b=UQ'])).toMatchObject({ query: { binding: { transports: ['U'], queue: true } } })
    expect(parseRegisterQuery(['ep=a', 'lwm2m=1.1', 'b=TN'])).toMatchObject({ query: { binding: { transports: ['T', 'N'], queue: false } } })
  })

  it('refuses with reasons', () => {
    expect(reason(['lt=60'])).toBe('lwm2m.register.endpoint.missing')
    expect(reason(['ep='])).toBe('lwm2m.register.endpoint.missing')
    expect(reason(['ep=' + 'x'.repeat(256)])).toBe('lwm2m.register.endpoint.invalid')
    expect(reason(['ep=a\u0001b'])).toBe('lwm2m.register.endpoint.invalid')
    for (const lt of ['0', '-5', '4294967296', '1.5', 'abc', '']) expect(reason(['ep=a', `lt=${lt}`]), lt).toBe('lwm2m.register.lifetime.invalid')
    expect(reason(['ep=a', 'lt'])).toBe('lwm2m.register.lifetime.invalid')
    expect(reason(['ep=a', 'lwm2m=1.2'])).toBe('lwm2m.register.version.unsupported')
    for (const b of ['X', 'UU', 'Q', '', 'T', 'UT', 'QU']) expect(reason(['ep=a', `b=${b}`]), b).toBe('lwm2m.register.binding.unknown')
    expect(reason(['ep=a', 'lwm2m=1.1', 'b=UX'])).toBe('lwm2m.register.binding.unknown')
    expect(reason(['ep=a', 'sms=12ab'])).toBe('lwm2m.register.sms.invalid')
    expect(reason(['ep=a', 'Q=1'])).toBe('lwm2m.register.queue.invalid')
    expect(reason(['ep=a', 'ep=b'])).toBe('lwm2m.register.parameter.duplicate')
    expect(reason('ep=%zz')).toBe('lwm2m.register.query.invalid')
    expect(reason(Array.from({ length: 65 }, (_, i) => `x${i}=1`))).toBe('lwm2m.register.query.invalid')
  })
})

describe('Update', () => {
  it('keeps only what was sent', () => {
    expect(parseUpdateQuery([])).toEqual({ ok: true, update: {} })
    expect(parseUpdateQuery(['lt=120', 'Q'])).toEqual({ ok: true, update: { lifetime: 120, binding: { transports: ['U'], queue: true } } })
    expect(parseUpdateQuery(['b=UQ'], '1.0')).toEqual({ ok: true, update: { binding: { transports: ['U'], queue: true } } })
    expect(parseUpdateQuery(['lt=0'])).toEqual({ ok: false, reason: 'lwm2m.register.lifetime.invalid' })
  })
})
