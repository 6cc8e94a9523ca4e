// How much a package may hold (docs/packages.md#the-package). Every size is checked against the ZIP's declared sizes
// before anything is inflated, and again while inflating, since a header can lie: a small ZIP may inflate to gigabytes.

export interface PackageLimits {
  /** Entries in the ZIP, folders included. */
  maxEntries: number
  /** One `*.app` or `*.cp` entry, uncompressed: a model is read whole into memory to be parsed. */
  maxModelBytes: number
  /** All entries, uncompressed. */
  maxTotalBytes: number
  /** One binary, uncompressed. */
  maxBinaryBytes: number
}

const MiB = 1024 * 1024

/**
 * Real packages hold a model or two and one binary per model; a gateway's firmware image (a SWUpdate or RAUC bundle)
 * runs to a few hundred MiB. Models are a few KiB; 4 MiB leaves room for a large LwM2M data model.
 */
export const DEFAULT_PACKAGE_LIMITS: PackageLimits = {
  maxEntries: 1000,
  maxModelBytes: 4 * MiB,
  maxTotalBytes: 2048 * MiB,
  maxBinaryBytes: 1024 * MiB
}
