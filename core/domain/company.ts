/** docs/api.md#users-and-companies: ipFilters and deviceIpFilters share this shape; start and end define a range. */
export interface IpFilters {
  startIPAddress: string | null
  endIPAddress: string | null
  ipAddresses: string[]
}

export interface Picture { normal: string, small: string, icon: string }

export interface Company {
  uid: string
  name: string
  address: string | null
  nFactor: boolean
  ipFiltering: boolean
  ipFilters: IpFilters
  deviceIpFiltering: boolean
  deviceIpFilters: IpFilters
  picture: Picture | null
  /** Maximum number of systems; null when unlimited. Not part of the Company resource. */
  systemLimit: number | null
}

export type CompanyPatch = Partial<Pick<Company, 'name' | 'address' | 'ipFiltering' | 'ipFilters' |
'deviceIpFiltering' | 'deviceIpFilters'>>

export const PICTURE_SIZES = ['normal', 'small', 'icon'] as const
export type PictureSize = typeof PICTURE_SIZES[number]

export function emptyIpFilters (): IpFilters {
  return { startIPAddress: null, endIPAddress: null, ipAddresses: [] }
}

export function picturePaths (companyUid: string): Picture {
  const base = `/api/v1/company/${companyUid}/picture/`
  return { normal: base + 'normal', small: base + 'small', icon: base + 'icon' }
}

/** The Company resource as the API answers it (systemLimit is internal). */
export function companyView (c: Company): Omit<Company, 'systemLimit'> {
  const { systemLimit: _limit, ...view } = c
  return view
}
