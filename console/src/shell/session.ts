// Who is signed in and in which company the console acts (docs/api.md#using-the-api: `company=<uid>` on each call).
// The chosen company is kept per tab; a company the user no longer belongs to falls back to their own.
import type { ApiClient } from '../lib/api.js'
import type { Session } from '../page.js'

export interface CompanyChoice { uid: string, name: string, administrator: boolean, home: boolean }

const CHOSEN = 'fleet.console.company'

export const chosenCompany = (): string | undefined => sessionStorage.getItem(CHOSEN) ?? undefined

export function chooseCompany (uid: string): void { sessionStorage.setItem(CHOSEN, uid) }

/** The session and the companies the user may switch to (GET /users/current, GET /users/current/companies). */
export async function loadSession (api: ApiClient): Promise<{ session: Session, companies: CompanyChoice[] }> {
  const [user, companies] = await Promise.all([
    api.get<Session['user'] & { company: { uid: string, name: string } }>('/api/v1/users/current'),
    api.get<CompanyChoice[]>('/api/v1/users/current/companies')
  ])
  const chosen = companies.find((c) => c.uid === chosenCompany()) ?? companies.find((c) => c.home)
  if (chosen === undefined) {
    return { session: { user, company: user.company, admin: false }, companies }
  }
  if (chosenCompany() !== undefined && chosenCompany() !== chosen.uid) sessionStorage.removeItem(CHOSEN)
  return { session: { user, company: { uid: chosen.uid, name: chosen.name }, admin: chosen.administrator }, companies }
}
