// How the reader refuses a package: one of the release error codes (core/domain/application-package.ts), and a message
// naming what to fix (the entry, and for a model the line).
import type { ReleaseError, ReleaseErrorCode } from './vocabulary.js'

/** A refusal, thrown inside the reader and by a binary's stream; openPackage answers it as `{ ok: false, error }`. */
export class PackageError extends Error {
  readonly code: ReleaseErrorCode
  constructor (code: ReleaseErrorCode, message: string) {
    super(message)
    this.name = 'PackageError'
    this.code = code
  }

  toReleaseError (): ReleaseError {
    return { code: this.code, message: this.message }
  }
}

export const invalidZip = (message: string): PackageError => new PackageError('application.release.invalid.zip', message)
export const tooLarge = (message: string): PackageError => new PackageError('application.release.too.large', message)

/** A problem of a model, at a line of an entry (the model or a fragment it includes). */
export const invalidModel = (entry: string, line: number, message: string): PackageError =>
  new PackageError('application.release.invalid.model', `${entry}, line ${line}: ${message}`)
