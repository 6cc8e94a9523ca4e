// Application packages (docs/packages.md): what a released ZIP declares (one model per `*.app` entry: the application,
// the protocols it speaks, its data tree, the device-side update path that installs it, its binaries) and what the
// service keeps of each binary. The reader (protocols/app-package/) produces ReleasedModel; the release operation
// stores the binaries in the artifact store (core/ports/artifacts.ts) and creates one application per model.
import type { CommunicationEntry, DataNode } from './application-model.js'

/** An application's life: released from a package, published (installable by AirVantage clients), deprecated. */
export const APPLICATION_STATES = ['RELEASED', 'PUBLISHED', 'DEPRECATED'] as const
export type ApplicationState = typeof APPLICATION_STATES[number]

/**
 * The device-side update paths (`<application-manager use>`): MQTT `swinstall` tasks (REST devices get the same task),
 * the Mihini agent's M3DA SoftwareUpdate, LwM2M objects 9 and 5, and the hawkBit DDI API of Linux gateways.
 */
export const APPLICATION_MANAGERS = ['MQTT_SW', 'MIHINI_APPCON', 'LWM2M_SW', 'LWM2M_FW', 'HAWKBIT'] as const
export type ApplicationManager = typeof APPLICATION_MANAGERS[number]

/** A binary as a model declares it: an entry of the ZIP. */
export interface DeclaredBinary {
  /** The entry's name in the ZIP (folders included, as the model writes it). */
  file: string
  revision: string | null
  /** `FULL` (a whole image) or what the model says; null when it says nothing. */
  type: string | null
}

/** A binary once stored: its size and digests (lower-case hex) and the artifact store's key. */
export interface StoredBinary extends DeclaredBinary {
  size: number
  sha256: string
  md5: string
  /** The artifact store's key of its bytes (core/ports/artifacts.ts). */
  artifact: string
}

/** One application model of a package, read and checked. */
export interface ReleasedModel {
  /** The `*.app` entry it was read from. */
  entry: string
  type: string
  name: string
  revision: string
  category: 'APPLICATION' | 'FIRMWARE'
  communication: CommunicationEntry[]
  /** `<dm><action impl>` values, as declared (MQTT_SW_INSTALL, LWM2M_REBOOT...). */
  dmActions: string[]
  data: DataNode[]
  /** `<application-manager use>`, null when the model names none (the application cannot be installed). */
  applicationManager: string | null
  binaries: DeclaredBinary[]
}

/** Why a release fails (its operation's task ends FAILURE with the code; nothing is created). */
export const RELEASE_ERRORS = [
  'application.release.invalid.zip',
  'application.release.no.model',
  'application.release.invalid.model',
  'application.release.missing.binary',
  'application.type.already.used',
  'application.release.too.large'
] as const
export type ReleaseErrorCode = typeof RELEASE_ERRORS[number]

export interface ReleaseError { code: ReleaseErrorCode, message: string }

/** The binary as the API shows it: everything but the artifact store's key, which stays inside the service. */
export type BinaryView = Omit<StoredBinary, 'artifact'>

/**
 * What an application holds beyond its model (docs/packages.md#release-and-publish): its life, who released it, the
 * update path that installs it, its binaries. An application made without a package (POST /applications, the seeded
 * ones) is PUBLISHED with no owner, no manager and no binaries.
 */
export interface ApplicationRelease {
  state: ApplicationState
  released: number | null
  published: number | null
  /** The releasing user; the name is null when that user no longer exists. */
  owner: { uid: string, name: string | null } | null
  applicationManager: string | null
  binaries: StoredBinary[]
}
