// Every error code the service answers (docs/api.md#using-the-api; and the OAuth ones of RFC 6749 §5.2) as a
// sentence a person can act on (errors as sentences everywhere). `{0}`, `{1}` are the errorParameters.
// A code missing here still shows, as "The service refused the request (<code>)." (test/unit/console/errors.test.ts
// checks that every code of core/errors.ts has its sentence).

const SENTENCES: Record<string, string> = {
  // set G: gateway identifiers
  'gateway.missing.identifiers': 'The gateway needs at least one identifier (IMEI, serial number or MAC address).',
  'gateway.not.unique.identifiers': 'Another gateway already has these identifiers.',
  'gateway.invalid.imei': 'The IMEI is not valid: it has 15 digits.',
  'gateway.invalid.esn': 'The ESN is not valid.',
  'gateway.invalid.meid': 'The MEID is not valid.',
  'gateway.invalid.mac.address': 'The MAC address is not valid.',
  'gateway.unknown': 'No gateway has these identifiers.',
  // set C: composition
  'application.not.unique': 'The same application is listed twice.',
  'applications.protocol.conflicts': 'Two applications of the system use the same protocol.',
  'system.applications.type.not.unique': 'Two applications of the system have the same type.',
  'system.communication.identifier.already.used': 'Another system already uses this communication identifier.',
  'system.invalid.m3da.registration.password': 'The M3DA registration password is not valid.',
  'system.invalid.m3da.password': 'The M3DA password is not valid.',
  'system.password.too.weak': 'The device password is too short: use at least {1} characters, not counting spaces at either end.',
  'system.msci.host.forbidden': 'The service never polls this MSCI host (loopback, link-local, metadata or multicast): give the gateway\'s own address.',
  'origin.forbidden': 'This page\'s address may not open the live stream: add it to CORS_ORIGINS.',
  'system.invalid.assignment': 'The gateway or subscription already belongs to another system.',
  'system.invalid.compatibility': 'This gateway and this subscription cannot go together.',
  // set S: selection
  'selection.empty': 'No system matches the selection.',
  'selection.invalid': 'Choose the systems by exactly one of: label, list, criteria or a previous operation.',
  'selection.max.uid.reached': 'Select at most 100 systems by hand, or use a label or filters.',
  'label.unknown': 'No system has the label {0}.',
  'operation.unknown': 'This operation does not exist.',
  // set T: schedule
  'operation.invalid.schedule.date': 'The start date must be less than 90 days ahead.',
  'operation.invalid.timeout.date': 'The timeout must come after the start date.',
  // set F: CSV files
  'file.unreadable': 'The file could not be read as CSV.',
  'file.header.missing': 'The file has no header line.',
  'csv.header.unknown.column': 'The file has a column the service does not know: {0}.',
  'file.missing.data': 'The file has no data lines.',
  'file.too.large': 'The file is too large.',
  // users
  'user.unknown': 'This user does not exist in the company.',
  'user.not.authorize': 'Only an administrator may change a profile.',
  'profile.unknown': 'This profile does not exist in the company.',
  'partner.unknown': 'You have no access to this company.',
  'user.missing': 'A company needs at least one administrator.',
  'admin.without.profile': 'An administrator without a profile cannot be removed from the administrators: give them a profile first.',
  // companies
  'company.unknown': 'This company does not exist, or you have no access to it.',
  'company.file.not.found': 'The company has no picture.',
  'invalid.format': 'The picture must be a JPEG or PNG image.',
  'image.invalid.dimension': 'The picture must be at most 1024 pixels on each side.',
  'company.missing.name': 'The company needs a name.',
  'company.not.unique.name': 'Another company already has this name.',
  'value.too.long': 'A value is too long: {0}.',
  'company.missing.ip.address.filtering': 'To filter API addresses, give at least one address or range.',
  'company.invalid.ip.address': 'This is not a valid IP address: {0}.',
  'company.invalid.ip.address.range': 'An address range needs both ends, the start not after the end.',
  'company.missing.device.ip.address.filtering': 'To filter device addresses, give at least one address or range.',
  'company.invalid.device.ip.address': 'This is not a valid device IP address: {0}.',
  'company.invalid.device.ip.address.range': 'A device address range needs both ends, the start not after the end.',
  'company.missing': 'Choose the company to transfer to.',
  // systems
  'unknown.enum.value': 'A value is not one of those allowed: {0}.',
  'application.missing': 'Choose at least one application.',
  'application.unknown': 'This application does not exist.',
  'system.missing.fields': 'Some required fields of the system are missing.',
  'subscription.missing.identifier': 'The subscription needs an identifier (ICCID).',
  'subscription.missing.operator': 'The subscription needs an operator.',
  'subscription.operator.and.operator.account.incompatible': 'The operator account is not one of this operator.',
  'operator.account.unknown': 'This operator account does not exist.',
  'system.limit.exceeded': 'The company has reached its number of systems.',
  'system.unknown': 'This system does not exist in the company.',
  'gateway.being.transferred': 'The gateway is being transferred to another company.',
  'subscription.unknown': 'This subscription does not exist.',
  'system.invalid.state': 'The system is not in a state that allows this.',
  // data
  'system.invalid.data.param': 'A data id is not valid.',
  'lastdata.incompatible.parameters': 'Give either data ids or a prefix, not both.',
  'lastdata.empty.parameters': 'The data prefix is empty.',
  'system.invalid.timerange': 'The start of the period must come before its end.',
  'aggregation.too.many.data': 'Too many data ids at once: choose fewer.',
  'aggregation.too.many.targets': 'Too many systems at once: choose fewer.',
  'aggregation.invalid.multiplier': 'The interval must be between 1 and 50 units.',
  'aggregation.invalid.timescale': 'The interval unit must be hour, day, month or year.',
  'invalid.timerange': 'The start of the period must come before its end.',
  'dataset.unknown': 'This data set does not exist.',
  'dataset.or.data.missing': 'Choose a data set or some data ids.',
  'operation.data.history.too.many.data.selected': 'Choose at most 200 data ids to export.',
  'record.unknown': 'This usage record does not exist.',
  // operations
  'label.missing': 'Give a label to add or to remove.',
  'label.amount.exceeded': 'At most 100 labels can be added or removed at once.',
  'selection.too.many.identifiers': 'Too many identifiers in the selection (at most 5000 of each kind).',
  'operation.transfer.system.incompatible.operator.account': 'A system\'s operator account is not available in the destination company.',
  'operation.transfer.system.gateway.invalid.state': 'A system\'s gateway must be in inventory to be transferred.',
  'operation.transfer.system.linked.to.private.application': 'A system uses a private application of this company and cannot be transferred.',
  'operation.transfer.system.incompatible.offer': 'The offer does not suit a system.',
  'operation.transfer.system.missing.offer': 'Choose an offer of the destination company.',
  'operation.transfer.system.unknown.offer': 'This offer does not exist in the destination company.',
  'operation.system.swapsim.system.invalid.state': 'The system is not in a state that allows a SIM swap.',
  'operation.system.swapsim.unsupported.operation': 'This SIM swap is not supported.',
  'operation.system.swapsim.system.unknown.subscription': 'The new SIM is unknown.',
  'operation.system.swapsim.system.different.operator.accounts': 'Both SIMs must be of the same operator account.',
  'operation.system.swapsim.system.linked.gateway': 'The new SIM already belongs to a gateway.',
  'offer.unknown': 'This offer does not exist.',
  'subscription.not.unique.identifiers': 'Another subscription already has these identifiers.',
  'subscription.assigned': 'The subscription already belongs to another system.',
  'gateway.assigned': 'The gateway already belongs to another system.',
  'system.invalid.registration.code': 'The registration code is missing or wrong.',
  'subscription.cannot.update.activation.imei.lock.exists': 'The subscription is locked to its IMEI and cannot be changed.',
  'operation.missing.data.ids': 'Choose the data to retrieve.',
  'operation.data.undefined': 'A data id is not defined by the system\'s applications: {0}.',
  'operation.all.data.undefined': 'None of the data ids is defined by the systems\' applications.',
  'operation.on.system.missing.comm.identifiers': 'The system has no communication identifiers: the device cannot be reached.',
  'operation.protocol.not.found.on.system.for.encoding': 'No application of the system says how to talk to the device.',
  'operation.missing.settings': 'Give the settings to apply.',
  'operation.all.settings.undefined': 'None of the settings is defined by the systems\' applications.',
  'settings.unknown': 'This settings template does not exist.',
  'operation.invalid.multiple.entries.for.same.key': 'A setting is given twice.',
  'reboot.invalid.action': 'This reboot action is not valid.',
  'operation.reboot.missing.reboot.action.in.system': 'The system\'s applications offer no reboot.',
  'operation.no.communication.id.on.system.for.protocol': 'The system has no identifier for its protocol: the device cannot be reached.',
  'reset.invalid.action': 'This reset action is not valid.',
  'operation.reset.missing.reset.action.in.system': 'The system\'s applications offer no reset to factory settings.',
  'operation.timeout': 'The device did not answer in time.',
  'operation.device.error': 'The device reported an error.',
  'operation.wakeup.missing.connect.action.in.system': 'The system\'s applications offer no way to wake it up.',
  'wakeup.invalid.action': 'This wake-up action is not valid.',
  'callback.invalid': 'The callback address is not valid.',
  'callback.forbidden': 'The callback address is not allowed.',
  'template.not.unique': 'Another template already has this name.',
  'operation.install.missing.application.manager': 'The application names no way to install it on devices (no application manager).',
  'operation.install.missing.binaries': 'The application has no binaries to install.',
  'operation.install.application.deprecated': 'The application is deprecated: it is installed no more.',
  'operation.install.unsupported.protocol': 'The application cannot be installed over the protocols this system speaks.',
  'operation.rollout.invalid': 'The rollout option {0} is not valid: {1}.',
  'operation.aborted.threshold': 'The rollout was stopped before this system\'s turn.',
  // application packages (docs/packages.md): a release's task fails with these, its message naming the entry
  'application.release.invalid.zip': 'The file is not a ZIP the service can read.',
  'application.release.no.model': 'The package holds no application model (*.app file).',
  'application.release.invalid.model': 'An application model of the package is not valid.',
  'application.release.missing.binary': 'A binary the model names is not in the package.',
  'application.release.too.large': 'The package, or an entry of it, is too large.',
  'application.type.already.used': 'An application with this type and revision already exists.',
  'application.in.use': 'The application is in use (an operation not finished names it, or systems have it): it cannot be deleted.',
  // device certificates and company CAs (docs/security.md#device-certificates)
  'certificate.invalid': 'This is not a certificate the service can register: {1}.',
  'certificate.already.registered': 'This certificate is already registered.',
  'certificate.expired': 'This certificate has expired.',
  'certificate.unknown': 'No such certificate is registered here.',
  // alert rules (docs/alerts.md)
  'alert.rule.invalid': 'The alert rule is not valid: {0} ({1}).',
  'alert.rule.too.many': 'The company has as many alert rules as it may have ({1}): delete one first.',
  'alert.rule.unknown': 'No such alert rule.',
  'alert.hook.unknown': 'No such hook on this alert rule.',
  'alert.unknown': 'No such alert: its rule or its system may have been deleted.',
  // The service's own codes
  'request.invalid': 'The request is not valid: {0}.',
  'sort.invalid.field': 'The list cannot be sorted by {0}.',
  'ip.forbidden': 'The company does not accept requests from your address ({0}).',
  'missing.rights': 'You do not have the right to do this ({0}).',
  invalid_token: 'Your session has ended: sign in again.',
  'not.found': 'This page of the service does not exist.',
  'payload.too.large': 'What you sent is too large.',
  'unsupported.media.type': 'The service does not accept this kind of content.',
  'rate.limit.exceeded': 'Too many requests: wait a moment and try again.',
  'service.unavailable': 'The service is busy: try again in a moment.',
  'internal.error': 'Something went wrong in the service. Try again; if it persists, tell the administrator.',
  // OAuth 2 (RFC 6749 §5.2), from the token endpoint
  invalid_grant: 'Your session has ended: sign in again.',
  invalid_client: 'The console is not known to the service.',
  invalid_request: 'The sign-in request was not valid.',
  unauthorized_client: 'The console may not sign in this way.',
  access_denied: 'Sign-in was refused.'
}

/** The sentence of a code, with its parameters in place. */
export function errorSentence (code: string, params: readonly string[] = []): string {
  const sentence = SENTENCES[code]
  if (sentence === undefined) return `The service refused the request (${code}).`
  // A sentence whose parameter is missing drops the part that named it, e.g. " ({0})".
  return sentence.replace(/ ?\(?\{(\d)\}\)?/g, (whole, i: string) => {
    const p = params[Number(i)]
    if (p === undefined || p === '') return ''
    return whole.replace(`{${i}}`, p)
  }).replace(/:\.$/, '.')
}

/** Whether the code has its own sentence (for the test that checks every code of the service). */
export const hasSentence = (code: string): boolean => code in SENTENCES

/**
 * The sentence with what the service said beyond it: the service's last parameter tells how to fix what it refused
 * (docs/api.md#using-the-api), e.g. "attach an application that declares ...". A last parameter that is one word (an
 * id, a uid) or that the sentence already shows is left out.
 */
export function errorText (code: string, params: readonly string[] = []): string {
  const sentence = errorSentence(code, params)
  const last = params.length - 1
  const hint = params[last]
  const shown = new RegExp(`\\{${last}\\}`).test(SENTENCES[code] ?? '')
  if (hint === undefined || shown || !/\s/.test(hint.trim())) return sentence
  return `${sentence} ${hint.trim().replace(/^./, (c) => c.toUpperCase()).replace(/[^.]$/, '$&.')}`
}

// A task's error can mean another thing than the same code answered to a request: settings.unknown refuses an
// unknown template (400), but fails a task for a setting its system does not declare, or declares of another type.
const TASK_SENTENCES: Record<string, string> = {
  'settings.unknown': 'A setting is not declared by the system\'s applications, or with another type.'
}

/** Why a rollout stopped (the operation's `abortReason`, docs/operations.md#safe-rollouts), in words. */
export const ABORT_REASON_TEXT: Record<string, string> = {
  'failure.threshold': 'too many of its tasks failed',
  'wave.failed': 'a wave could no longer reach its share of successes'
}

/**
 * A failed task's reason (GET /operations/{uid}/tasks: `error: {code, message}`): the device's own words for its
 * ERROR, else the sentence of the code with the service's message after it (the message starts with the code, shown
 * beside it anyway).
 */
export function taskErrorText (code: string, message: string): string {
  const detail = (message.startsWith(code) ? message.slice(code.length) : message).trim()
  if (code === 'operation.device.error') return detail === '' || detail === 'ERROR' ? errorSentence(code) : `The device reported an error: ${detail}`
  // The message of a task an abort cancelled is the code and the abort's reason: the reason in words.
  if (code === 'operation.aborted.threshold' && detail !== '') return `${errorSentence(code).replace(/\.$/, '')}: ${ABORT_REASON_TEXT[detail] ?? detail}.`
  const sentence = TASK_SENTENCES[code] ?? errorSentence(code)
  return detail === '' ? sentence : `${sentence.replace(/\.$/, '')}: ${detail}`
}
