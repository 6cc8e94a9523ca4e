// The applications a simulated device has installed (simulator/README.md "Software"): one revision per type, as the
// service keeps a system's applications (docs/packages.md#installs: the installed revision in place of its type's
// other one), each running or stopped. The device reports none of it: the service records an install when the task
// ends SUCCESS, which is what the agents of docs/packages.md do too.

export interface InstalledApplication {
  readonly type: string
  readonly revision: string
  readonly running: boolean
}

export interface InstalledApplications {
  list (): readonly InstalledApplication[]
  /** Installs (and starts) a revision in place of any other of its type. */
  install (type: string, revision: string): void
  /** Removes that revision; false when the device does not have it. */
  uninstall (type: string, revision: string): boolean
  /** Starts or stops that revision; false when the device does not have it. */
  setRunning (type: string, revision: string, running: boolean): boolean
}

export function installedApplications (initial: readonly InstalledApplication[] = []): InstalledApplications {
  const byType = new Map<string, InstalledApplication>(initial.map((a) => [a.type, a]))
  const has = (type: string, revision: string): boolean => byType.get(type)?.revision === revision
  return {
    list: () => [...byType.values()],
    install (type, revision) { byType.set(type, { type, revision, running: true }) },
    uninstall (type, revision) { return has(type, revision) && byType.delete(type) },
    setRunning (type, revision, running) {
      if (!has(type, revision)) return false
      byType.set(type, { type, revision, running })
      return true
    }
  }
}
