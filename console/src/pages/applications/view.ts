// What the applications pages show of an application (docs/packages.md#release-and-publish): its state and category
// in words, its owner, and its binaries.
export interface Binary { file: string, revision: string | null, type: string | null, size: number, sha256: string, md5: string }
export interface Application {
  uid: string
  name: string
  type: string
  revision: string
  category: string
  public: boolean
  state: string
  released: number | null
  published: number | null
  owner: { uid: string, name: string | null } | null
  applicationManager: string | null
  binaries: Binary[]
}

export const APPLICATION_STATE_TEXT: Record<string, string> = { RELEASED: 'Released', PUBLISHED: 'Published', DEPRECATED: 'Deprecated' }
export const CATEGORY_TEXT: Record<string, string> = { APPLICATION: 'Application', FIRMWARE: 'Firmware' }

export const applicationStateText = (s: string): string => APPLICATION_STATE_TEXT[s] ?? s
export const categoryText = (c: string): string => CATEGORY_TEXT[c] ?? c

/** Who owns it: the user who released it, "Public" for the service's own, "—" for one made without a package. */
export function ownerText (a: Pick<Application, 'public' | 'owner'>): string {
  if (a.public) return 'Public'
  if (a.owner === null) return '—'
  return a.owner.name ?? 'A deleted user'
}

/** Only the company's own applications are published or deleted by it (docs/packages.md#release-and-publish). */
export const ownedByCompany = (a: Pick<Application, 'public'>): boolean => !a.public
