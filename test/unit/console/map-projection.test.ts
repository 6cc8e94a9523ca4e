import { describe, expect, it } from 'vitest'
import { fitView, positionOf, project, ringsPath, WORLD_VIEW, type LonLat } from '../../../console/src/lib/map-projection.js'

const inside = (v: ReturnType<typeof fitView>, p: LonLat): boolean => {
  const [x, y] = project(p)
  return x >= v.x && x <= v.x + v.width && y >= v.y && y <= v.y + v.height
}

describe('map projection', () => {
  it('is Mercator in degree units: the equator at 0, north up (negative y), poles clipped at 85°', () => {
    expect(project([12, 0])[0]).toBe(12)
    expect(project([12, 0])[1]).toBeCloseTo(0, 9)
    expect(project([0, 45])[1]).toBeCloseTo(-50.5, 1)
    expect(project([0, -45])[1]).toBeCloseTo(50.5, 1)
    expect(project([0, 90])).toEqual(project([0, 85]))
  })

  it('shows the world when there is no system with a position', () => {
    expect(fitView([], 2)).toEqual(WORLD_VIEW)
    expect(WORLD_VIEW.width).toBe(360)
  })

  it('fits the fleet with a margin, at the ratio asked', () => {
    const fleet: LonLat[] = [[2.35, 48.85], [-0.57, 44.84], [5.37, 43.3]]
    const v = fitView(fleet, 2, { minWidth: 5 })
    for (const p of fleet) expect(inside(v, p)).toBe(true)
    expect(v.width / v.height).toBeCloseTo(2, 6)
    expect(v.width).toBeLessThan(25)
    expect(inside(v, [-74, 40.7])).toBe(false)
  })

  it('shows a region around a single system rather than a point', () => {
    const v = fitView([[2.35, 48.85]], 1.5, { minWidth: 10 })
    expect(v.width).toBeCloseTo(10, 6)
    expect(inside(v, [2.35, 48.85])).toBe(true)
  })

  it('never gets wider than the world, and stays on it sideways', () => {
    const v = fitView([[-170, 60], [170, -40]], 4)
    expect(v.width).toBe(360)
    expect(v.x).toBe(-180)
  })

  it('draws rings as closed sub-paths and skips degenerate ones', () => {
    const path = ringsPath([[[0, 0], [10, 0], [10, 10], [0, 0]], [[1, 1], [2, 2]]])
    expect(path.startsWith('M0,0L10,0L10,')).toBe(true)
    expect(path.endsWith('Z')).toBe(true)
    expect(path.match(/M/g)).toHaveLength(1)
  })

  it('reads a position from the system data, refusing missing, out of range and 0,0 ones', () => {
    expect(positionOf({ latitude: 48.85, longitude: 2.35 })).toEqual([2.35, 48.85])
    expect(positionOf({ latitude: '48.85', longitude: '2.35' })).toEqual([2.35, 48.85])
    expect(positionOf({ latitude: null, longitude: 2 })).toBeNull()
    expect(positionOf({ latitude: '', longitude: '' })).toBeNull()
    expect(positionOf({ latitude: 95, longitude: 2 })).toBeNull()
    expect(positionOf({ latitude: 0, longitude: 0 })).toBeNull()
    expect(positionOf(undefined)).toBeNull()
  })
})
