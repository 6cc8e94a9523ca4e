import sharp, { type Metadata } from 'sharp'
import { FleetError } from '../errors.js'
import type { CompaniesRepository } from '../ports/companies.js'
import type { CompanyAccess } from './access.js'
import { PICTURE_SIZES, type PictureSize } from '../domain/company.js'

// docs/api.md#limits: picture at most 750 KB and 1024 px per side; §User: small is 32x32 and icon 16x16,
// keeping the ratio.
export const MAX_PICTURE_BYTES = 750 * 1024
export const MAX_PICTURE_SIDE = 1024
const BOXES: Record<Exclude<PictureSize, 'normal'>, number> = { small: 32, icon: 16 }
const TYPES: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png' }
const FORMATS = 'a JPG or PNG image'

export interface CompanyPictureDeps { companies: Pick<CompaniesRepository, 'putPictures' | 'getPicture'> }

export function createCompanyPictureService ({ companies }: CompanyPictureDeps) {
  /**
   * Stores the original and its two reductions.
   * @throws file.too.large, invalid.format (not JPEG or PNG), image.invalid.dimension
   */
  async function upload (access: CompanyAccess, image: Buffer): Promise<void> {
    if (image.length > MAX_PICTURE_BYTES) throw new FleetError('file.too.large', [String(MAX_PICTURE_BYTES)])
    let meta: Metadata
    try { meta = await sharp(image).metadata() } catch { throw new FleetError('invalid.format', ['unreadable', FORMATS]) }
    const contentType = meta.format === undefined ? undefined : TYPES[meta.format]
    if (contentType === undefined) throw new FleetError('invalid.format', [meta.format ?? '', FORMATS])
    const { width = 0, height = 0 } = meta
    if (width > MAX_PICTURE_SIDE || height > MAX_PICTURE_SIDE) {
      throw new FleetError('image.invalid.dimension', [String(width), String(height), `at most ${MAX_PICTURE_SIDE} px per side`])
    }
    // rotate() applies the EXIF orientation, which the reductions would otherwise lose with the metadata.
    const reduce = async (box: number): Promise<Buffer> => {
      const s = sharp(image).rotate().resize(box, box, { fit: 'inside' })
      return await (meta.format === 'png' ? s.png() : s.jpeg()).toBuffer()
    }
    let small: Buffer, icon: Buffer
    try {
      [small, icon] = await Promise.all([reduce(BOXES.small), reduce(BOXES.icon)])
    } catch {
      // A valid header over damaged or truncated pixels: metadata() passed, decoding does not.
      throw new FleetError('invalid.format', [meta.format ?? '', FORMATS])
    }
    await companies.putPictures(access.company.uid, {
      normal: { contentType, data: image },
      small: { contentType, data: small },
      icon: { contentType, data: icon }
    })
  }

  /** @throws company.file.not.found when the company has no picture (or the size name is not one of the three). */
  async function get (access: CompanyAccess, name: string): Promise<{ contentType: string, data: Buffer }> {
    const size = PICTURE_SIZES.find((s) => s === name)
    const found = size === undefined ? undefined : await companies.getPicture(access.company.uid, size)
    if (found === undefined) throw new FleetError('company.file.not.found', [name])
    return found
  }

  return { upload, get }
}

export type CompanyPictureService = ReturnType<typeof createCompanyPictureService>
