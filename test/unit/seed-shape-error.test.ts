import { describe, expect, it } from 'vitest'
import { seedShapeError } from '../../core/services/seed.service.js'

describe('a seed document of the wrong shape', () => {
  it('names an unknown field and where it is, instead of "schema is false"', () => {
    expect(seedShapeError({ companies: [{ name: 'X', colour: 'red' }] })).toBe('invalid seed document at /companies/0: unknown field "colour" (README, "Seed file", lists the fields)')
    expect(seedShapeError({ users: [{ email: 'a@b.test', name: 'A', companies: [{ company: 'X', role: 'admin' }] }] }))
      .toContain('at /users/0/companies/0: unknown field "role"')
  })

  it('refuses an unknown top-level section (a typo such as "user" for "users" would otherwise be ignored)', () => {
    expect(seedShapeError({ user: [] })).toBe('invalid seed document at /: unknown field "user" (README, "Seed file", lists the fields)')
  })

  it('keeps the schema\'s words for a value of the wrong type', () => {
    expect(seedShapeError({ companies: [{ name: 3 }] })).toBe('invalid seed document at /companies/0/name: must be string')
  })
})
