// What to do when a device operation asks for something no application of a system declares: the ids, settings
// and actions come from the system's applications only, and a system made without one (the README's first steps
// made one so) has nothing to read, write or run. The hint is the last error parameter, as every refusal's way to
// fix it is (docs/api.md#using-the-api); the code stays the one clients match.

const GENERIC = 'the generic firmware of its protocol declares _RSSI, config.reportPeriodS... and system.reboot: ' +
  'GET /api/v1/applications?type=generic.mqtt (or .rest, .m3da...), then add it to the system\'s applications'

/** `what`: what the application must declare, e.g. "these ids as variables or settings". */
export const declareHint = (what: string): string => `attach an application that declares ${what} (${GENERIC})`
