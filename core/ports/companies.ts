// The companies' port (storage/repositories/companies.repository.ts implements it).
import type { Company, CompanyPatch, PictureSize } from '../domain/company.js'

export interface CompaniesRepository {
  findByUid (uid: string): Promise<Company | undefined>
  /** Whether the store holds a company: false only before the first start has created its own. */
  any (): Promise<boolean>
  findByName (name: string): Promise<Company | undefined>
  insert (c: Company, createdAt: number): Promise<void>
  update (uid: string, patch: CompanyPatch): Promise<void>
  setSystemLimit (uid: string, limit: number | null): Promise<void>
  addPartner (companyUid: string, partnerUid: string): Promise<void>
  partners (companyUid: string): Promise<string[]>
  putPictures (companyUid: string, pictures: Record<PictureSize, { contentType: string, data: Buffer }>): Promise<void>
  getPicture (companyUid: string, size: PictureSize): Promise<{ contentType: string, data: Buffer } | undefined>
}
