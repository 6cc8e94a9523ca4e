// Paths (Core TS 1.1 §6.1/§7.1) and the service's data ids (docs/protocols/lwm2m.md).
import { describe, expect, it } from 'vitest'
import { commonPath, dataIdToPath, formatPath, isUnder, parsePath, pathDepth, pathToDataId } from '../../../protocols/lwm2m/index.js'

describe('paths', () => {
  it('parses and formats object, instance, resource and resource instance paths', () => {
    expect(parsePath('/3')).toEqual({ ok: true, path: { objectId: 3 } })
    expect(parsePath('/3/0')).toEqual({ ok: true, path: { objectId: 3, instanceId: 0 } })
    expect(parsePath('/3/0/1')).toEqual({ ok: true, path: { objectId: 3, instanceId: 0, resourceId: 1 } })
    expect(parsePath('/3/0/1/2')).toEqual({ ok: true, path: { objectId: 3, instanceId: 0, resourceId: 1, resourceInstanceId: 2 } })
    expect(parsePath('/65535/65535/65535/65535')).toMatchObject({ ok: true })
    for (const text of ['/3/0/1/2', '/3', '/65535/0']) {
      const d = parsePath(text)
      expect(d.ok && formatPath(d.path)).toBe(text)
    }
  })

  it('refuses the root, out-of-range ids, leading zeros, empty segments, a fifth level', () => {
    for (const bad of ['/', '', '3/0', '/3/', '/3//1', '/65536', '/03', '/-1', '/3/0/1/2/3', '/a', '/3.0', '/1e3']) {
      expect(parsePath(bad), bad).toEqual({ ok: false, reason: 'lwm2m.path.invalid' })
    }
  })

  it('maps data ids both ways', () => {
    const d = parsePath('/3/0/3')
    expect(d.ok && pathToDataId(d.path)).toBe('lwm2m.3.0.3')
    expect(dataIdToPath('lwm2m.4.0.2')).toEqual({ objectId: 4, instanceId: 0, resourceId: 2 })
    expect(dataIdToPath('lwm2m.3.0.7.1')).toEqual({ objectId: 3, instanceId: 0, resourceId: 7, resourceInstanceId: 1 })
    for (const bad of ['lwm2m.', 'lwm2m.3..1', 'lwm2m.70000.0.1', 'm3da.3.0.1', 'lwm2m.3.0.1.2.3', 'lwm2m.x']) expect(dataIdToPath(bad), bad).toBeUndefined()
  })

  it('prefixes, depth, the path values share', () => {
    const at = (t: string) => { const d = parsePath(t); if (!d.ok) throw new Error(t); return d.path }
    expect(isUnder(at('/3/0/7/1'), at('/3/0'))).toBe(true)
    expect(isUnder(at('/3/0'), at('/3/0/7'))).toBe(false)
    expect(isUnder(at('/3/1/7'), at('/3/0'))).toBe(false)
    expect(pathDepth(at('/3/0/7/1'))).toBe(4)
    expect(commonPath([at('/3/0/7/1'), at('/3/0/9')])).toEqual(at('/3/0'))
    expect(commonPath([at('/3/0/9')])).toEqual(at('/3/0/9'))
    expect(commonPath([at('/3/0/9'), at('/4/0/9')])).toBeUndefined()
  })
})
