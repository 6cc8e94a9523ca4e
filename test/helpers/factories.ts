import { randomBytes } from 'node:crypto'
import type { Stack } from './stack.js'
import { COMPANY_NAME } from './stack.js'
import type { SeedDocument } from '../../core/services/seed.service.js'

export const uniq = (prefix: string): string => `${prefix}-${randomBytes(4).toString('hex')}`

export interface TestUser { uid: string, email: string, password: string, token: string }

/**
 * A user of `company` (default: the stack's company) holding a profile made of `rights`, logged in.
 * Other companies are created on the fly by name.
 */
export async function createUser (stack: Stack, opts: { rights?: string[], administrator?: boolean, company?: string, name?: string, profile?: string | null } = {}): Promise<TestUser> {
  const email = `${uniq('user')}@test.local`
  const password = 'pw-' + uniq('x')
  const company = opts.company ?? COMPANY_NAME
  const profile = opts.profile === null ? null : opts.profile ?? uniq('profile')
  const doc: SeedDocument = {
    companies: [{ name: company }],
    profiles: profile === null || opts.profile !== undefined ? [] : [{ company, name: profile, rights: opts.rights ?? [] }],
    users: [{ email, name: opts.name ?? email, password, companies: [{ company, profile, administrator: opts.administrator ?? false }] }]
  }
  await stack.ctx.services.seed.seed(doc)
  const token = await stack.login(email, password)
  const me = (await stack.call(token, { method: 'GET', url: '/api/v1/users/current' })).json() as { uid: string }
  return { uid: me.uid, email, password, token }
}

/** Runs a seed document against the stack's store. */
export async function seed (stack: Stack, doc: SeedDocument): Promise<void> {
  await stack.ctx.services.seed.seed(doc)
}

/** The uid of a company by its name. */
export async function companyUid (stack: Stack, name: string): Promise<string> {
  const { rows } = await stack.db.query<{ uid: string }>('SELECT uid FROM companies WHERE name = $1', [name])
  if (rows[0] === undefined) throw new Error(`no company ${name}`)
  return rows[0].uid
}
