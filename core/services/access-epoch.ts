/**
 * Bumped by every change of who may do what (memberships, profiles, administrators, seeding): actors cached by the
 * auth service for a moment are resolved again after it, at once in this process.
 */
export function createAccessEpoch () {
  let epoch = 0
  return { bump (): void { epoch++ }, current: (): number => epoch }
}

export type AccessEpoch = ReturnType<typeof createAccessEpoch>
