// The device task of an install, uninstall, start or stop (docs/packages.md): protocol-neutral like the other device
// task bodies (core/domain/device-task.ts), carrying what every update path needs; each transport encodes it for its
// wire: MQTT and REST as a `swinstall` task, M3DA as the Mihini agent's SoftwareUpdate command, hawkBit DDI as a
// deployment with its artifacts' links and hashes.
import type { ApplicationManager } from './application-package.js'

export const SOFTWARE_ACTIONS = ['install', 'uninstall', 'start', 'stop'] as const
export type SoftwareAction = typeof SOFTWARE_ACTIONS[number]

/** A binary to download: its own link (bound to the task's system, valid until the operation's timeout). */
export interface SoftwareBinary {
  file: string
  revision: string | null
  type: string | null
  size: number
  sha256: string
  md5: string
  /** `${PUBLIC_URL}/device/packages/<token>`. */
  url: string
}

export interface SoftwareBody {
  software: {
    action: SoftwareAction
    application: { uid: string, type: string, name: string, revision: string }
    manager: ApplicationManager
    /** The binaries to download (install); empty for uninstall, start and stop. */
    binaries: SoftwareBinary[]
  }
}
