// AirVantage application packages (docs/packages.md#the-package): the ZIP a release uploads, its models read and
// checked, its binaries streamed with their sizes bounded. No store, no HTTP: the release operation calls openPackage.
export { PackageError } from './errors.js'
export { DEFAULT_PACKAGE_LIMITS } from './limits.js'
export type { PackageLimits } from './limits.js'
export { openPackage } from './open.js'
export type { OpenedPackage, OpenResult } from './open.js'
export { MODEL_NS } from './xml.js'
