// One catalogue of error codes (docs/architecture.md#house-rules). The codes are the strings of
// docs/api.md#using-the-api; the HTTP status of each lives here and nowhere else (docs/api.md#using-the-api: business
// and validation errors answer 400, a missing right 403, a bad token 401, an unknown route 404, rate limit 429).

const SPEC_CODES = [
  // set G: gateway identifiers
  'gateway.missing.identifiers', 'gateway.not.unique.identifiers', 'gateway.invalid.imei', 'gateway.invalid.esn',
  'gateway.invalid.meid', 'gateway.invalid.mac.address', 'gateway.unknown',
  // set C: composition
  'application.not.unique', 'applications.protocol.conflicts', 'system.applications.type.not.unique',
  'system.communication.identifier.already.used', 'system.invalid.m3da.registration.password',
  'system.invalid.m3da.password', 'system.invalid.assignment', 'system.invalid.compatibility',
  // set S: selection
  'selection.empty', 'selection.invalid', 'selection.max.uid.reached', 'label.unknown', 'operation.unknown',
  // set T: schedule
  'operation.invalid.schedule.date', 'operation.invalid.timeout.date',
  // set F: CSV files
  'file.unreadable', 'file.header.missing', 'csv.header.unknown.column', 'file.missing.data', 'file.too.large',
  // users
  'user.unknown', 'user.not.authorize', 'profile.unknown', 'partner.unknown', 'user.missing', 'admin.without.profile',
  // companies
  'company.unknown', 'company.file.not.found', 'invalid.format', 'image.invalid.dimension', 'company.missing.name',
  'company.not.unique.name', 'value.too.long', 'company.missing.ip.address.filtering', 'company.invalid.ip.address',
  'company.invalid.ip.address.range', 'company.missing.device.ip.address.filtering',
  'company.invalid.device.ip.address', 'company.invalid.device.ip.address.range', 'company.missing',
  // systems
  'unknown.enum.value', 'application.missing', 'application.unknown', 'system.missing.fields',
  'subscription.missing.identifier', 'subscription.missing.operator',
  'subscription.operator.and.operator.account.incompatible', 'operator.account.unknown', 'system.limit.exceeded',
  'system.unknown', 'gateway.being.transferred', 'subscription.unknown', 'system.invalid.state',
  // data
  'system.invalid.data.param', 'lastdata.incompatible.parameters', 'lastdata.empty.parameters',
  'system.invalid.timerange', 'aggregation.too.many.data', 'aggregation.too.many.targets',
  'aggregation.invalid.multiplier', 'aggregation.invalid.timescale', 'invalid.timerange', 'dataset.unknown',
  'dataset.or.data.missing', 'operation.data.history.too.many.data.selected', 'record.unknown',
  // operations
  'label.missing', 'label.amount.exceeded', 'selection.too.many.identifiers',
  'operation.transfer.system.incompatible.operator.account', 'operation.transfer.system.gateway.invalid.state',
  'operation.transfer.system.linked.to.private.application', 'operation.transfer.system.incompatible.offer',
  'operation.transfer.system.missing.offer', 'operation.transfer.system.unknown.offer',
  'operation.system.swapsim.system.invalid.state', 'operation.system.swapsim.unsupported.operation',
  'operation.system.swapsim.system.unknown.subscription', 'operation.system.swapsim.system.different.operator.accounts',
  'operation.system.swapsim.system.linked.gateway', 'offer.unknown', 'subscription.not.unique.identifiers',
  'subscription.assigned', 'gateway.assigned', 'system.invalid.registration.code',
  'subscription.cannot.update.activation.imei.lock.exists', 'operation.missing.data.ids', 'operation.data.undefined',
  'operation.all.data.undefined', 'operation.on.system.missing.comm.identifiers',
  'operation.protocol.not.found.on.system.for.encoding', 'operation.missing.settings',
  'operation.all.settings.undefined', 'settings.unknown', 'operation.invalid.multiple.entries.for.same.key',
  'reboot.invalid.action', 'operation.reboot.missing.reboot.action.in.system',
  'operation.no.communication.id.on.system.for.protocol', 'reset.invalid.action',
  'operation.reset.missing.reset.action.in.system'
] as const

/** Codes of ours, not in docs/api.md (kept short and reviewed). */
const OWN_CODES = {
  'request.invalid': 400, // a body or query that fails its JSON schema, with no spec code for it
  'sort.invalid.field': 400, // docs/api.md#using-the-api: sort on an attribute that is not sortable
  'operation.timeout': 400, // docs/operations.md#bulk-operations: a task still running at timeoutDate
  'operation.device.error': 400, // docs/devices.md: the device answered ERROR (its message is the task's)
  // docs/operations.md#safe-rollouts: a rollout, abort or maintenanceWindow field of a device operation, named
  'operation.rollout.invalid': 400,
  'callback.invalid': 400, // docs/operations.md#bulk-operations: a callback that is not an http(s) URL
  'callback.forbidden': 400, // docs/operations.md#bulk-operations: a callback host in a loopback, link-local or private network
  'system.msci.host.forbidden': 400, // an MSCI host the service never polls: link-local, metadata, multicast (docs/protocols/msci.md)
  'system.password.too.weak': 400, // a device login password under 8 characters, spaces at either end aside (docs/security.md)
  'template.not.unique': 400, // a setting template name is taken in the company
  // docs/packages.md#release-and-publish: why a release operation's task fails (nothing is created), and an application
  // that an operation not yet finished names, or that systems have, cannot be deleted
  'application.release.invalid.zip': 400,
  'application.release.no.model': 400,
  'application.release.invalid.model': 400,
  'application.release.missing.binary': 400,
  'application.type.already.used': 400,
  'application.release.too.large': 400,
  'application.in.use': 400,
  // docs/packages.md#installs: an install, uninstall, start or stop of an application without an update path, an
  // install without binaries or of a deprecated application (400); a system its update path cannot reach (its task)
  'operation.install.missing.application.manager': 400,
  'operation.install.missing.binaries': 400,
  'operation.install.application.deprecated': 400,
  'operation.install.unsupported.protocol': 400,
  // docs/api.md's wake-up row lists no code: these follow the reboot and reset rows(core/operations/kinds/wakeup.ts)
  'wakeup.invalid.action': 400,
  'operation.wakeup.missing.connect.action.in.system': 400,
  // docs/security.md#device-certificates: a body that is not one X.509 certificate in PEM (or holds a private key, or a
  // CA that is no CA), a fingerprint registered anywhere already, a certificate past its notAfter, an unknown one
  'certificate.invalid': 400,
  'certificate.already.registered': 400,
  'certificate.expired': 400,
  'certificate.unknown': 400,
  // docs/alerts.md: a rule that breaks a rule of its shape (the field named first, then why), a company's limit of
  // rules (ALERT_RULES_PER_COMPANY), an unknown rule or hook (another company's answers the same)
  'alert.rule.invalid': 400,
  'alert.rule.too.many': 400,
  'alert.rule.unknown': 400,
  'alert.hook.unknown': 400,
  'alert.unknown': 400, // docs/alerts.md#alerts: no such alert in the context company (another company's answers the same)
  'ip.forbidden': 403, // company ipFiltering refuses the caller's address
  'origin.forbidden': 403, // a browser page of an origin neither the service's nor in CORS_ORIGINS opens a live stream
  'missing.rights': 403,
  invalid_token: 401,
  'not.found': 404,
  'payload.too.large': 413,
  'unsupported.media.type': 415,
  'rate.limit.exceeded': 429,
  'service.unavailable': 503, // overload: the request was shed, try again after Retry-After (api/plugins/overload.ts)
  'internal.error': 500
} as const

export type SpecCode = typeof SPEC_CODES[number]
export type ErrorCode = SpecCode | keyof typeof OWN_CODES

export const SPEC_ERROR_CODES: readonly SpecCode[] = SPEC_CODES

export function statusOf (code: ErrorCode): number {
  return (OWN_CODES as Record<string, number>)[code] ?? 400
}

export function isErrorCode (code: string): code is ErrorCode {
  return code in OWN_CODES || (SPEC_CODES as readonly string[]).includes(code)
}

/** A business or validation failure: a stable code, string parameters, rendered once at the edge. */
export class FleetError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly params: readonly string[]
  constructor (code: ErrorCode, params: readonly unknown[] = [], opts: { cause?: unknown, message?: string } = {}) {
    super(opts.message ?? code, { cause: opts.cause })
    this.name = 'FleetError'
    this.code = code
    this.status = statusOf(code)
    this.params = params.map((p) => String(p))
  }
}

export const isFleetError = (e: unknown): e is FleetError => e instanceof FleetError
