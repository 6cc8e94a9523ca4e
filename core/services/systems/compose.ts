// The parts a system is made of, resolved and checked (docs/api.md#systems, sets G and C of docs/api.md#using-the-api).
import { FleetError } from '../../errors.js'
import type { Repositories } from '../../ports/repositories.js'
import type { Application, Communication, Gateway, Subscription } from '../../domain/system.js'
import { OPERATORS } from '../../domain/system.js'
import { validEsn, validImei, validMac, validMeid } from '../../domain/identifiers.js'
import { newUid } from '../../security/secrets.js'
import { isNeverPolled } from '../../domain/msci-host.js'

export interface GatewayInput {
  uid?: string | undefined
  imei?: string | null | undefined
  serialNumber?: string | null | undefined
  macAddress?: string | null | undefined
  esn?: string | null | undefined
  meid?: string | null | undefined
  type?: string | null | undefined
}

export interface SubscriptionInput {
  uid?: string | undefined
  identifier?: string | null | undefined
  operator?: string | null | undefined
  operatorAccount?: { uid?: string | undefined } | null | undefined
  mobileNumber?: string | null | undefined
  networkIdentifier?: string | null | undefined
  ipAddress?: string | null | undefined
  requestedIp?: string | null | undefined
  eid?: string | null | undefined
  state?: string | null | undefined
  appletGeneration?: string | null | undefined
  formFactor?: string | null | undefined
  confType?: string | null | undefined
  technology?: string | null | undefined
  orderId?: string | null | undefined
  productRefName?: string | null | undefined
  activationImei?: string | null | undefined
  imeiLock?: { imeiLock?: boolean | string | null | undefined, imeiLockDate?: number | null | undefined, imeiUnlockedDate?: number | null | undefined } | null | undefined
}

type Tx = Pick<Repositories, 'gateways' | 'subscriptions' | 'applications' | 'systems' | 'catalogue'>

const blank = (v: string | null | undefined): v is null | undefined => v === undefined || v === null || v.trim() === ''

/** Set G: identifier formats. */
export function checkIdentifiers (g: GatewayInput): void {
  if (!blank(g.imei) && !validImei(g.imei)) throw new FleetError('gateway.invalid.imei', [g.imei])
  if (!blank(g.esn) && !validEsn(g.esn)) throw new FleetError('gateway.invalid.esn', [g.esn])
  if (!blank(g.meid) && !validMeid(g.meid)) throw new FleetError('gateway.invalid.meid', [g.meid])
  if (!blank(g.macAddress) && !validMac(g.macAddress)) throw new FleetError('gateway.invalid.mac.address', [g.macAddress])
}

/**
 * A gateway linked by uid, or made from identifiers: an existing gateway of the company with one of the given
 * identifiers is updated instead of duplicated (docs/api.md#systems).
 * @throws set G codes, gateway.being.transferred
 */
export async function resolveGateway (tx: Tx, companyUid: string, input: GatewayInput, now: number): Promise<Gateway> {
  if (input.uid !== undefined) {
    const found = await tx.gateways.findByUid(companyUid, input.uid)
    if (found === undefined) throw new FleetError('gateway.unknown', [input.uid])
    if (found.transferTo !== null) throw new FleetError('gateway.being.transferred', [found.uid])
    return found
  }
  checkIdentifiers(input)
  if (blank(input.imei) && blank(input.serialNumber) && blank(input.macAddress)) {
    throw new FleetError('gateway.missing.identifiers', ['gateway', 'set one of imei, serialNumber, macAddress (or uid for an existing gateway)'])
  }
  const ids = { imei: blank(input.imei) ? null : input.imei, serialNumber: blank(input.serialNumber) ? null : input.serialNumber, macAddress: blank(input.macAddress) ? null : input.macAddress }
  const existing = await tx.gateways.findByIdentifiers(companyUid, ids)
  if (existing.length > 1) throw new FleetError('gateway.not.unique.identifiers', existing.map((g) => g.uid))
  const patch = {
    ...(ids.imei !== null ? { imei: ids.imei } : {}),
    ...(ids.serialNumber !== null ? { serialNumber: ids.serialNumber } : {}),
    ...(ids.macAddress !== null ? { macAddress: ids.macAddress } : {}),
    ...(blank(input.esn) ? {} : { esn: input.esn }),
    ...(blank(input.meid) ? {} : { meid: input.meid }),
    ...(input.type === undefined ? {} : { type: input.type })
  }
  const [found] = existing
  if (found !== undefined) {
    if (found.transferTo !== null) throw new FleetError('gateway.being.transferred', [found.uid])
    await tx.gateways.update(found.uid, patch)
    return { ...found, ...patch }
  }
  const g: Gateway = {
    uid: newUid(),
    companyUid,
    imei: null,
    serialNumber: null,
    macAddress: null,
    esn: null,
    meid: null,
    type: null,
    state: 'INVENTORY',
    transferTo: null,
    creationDate: now,
    ...patch
  }
  await tx.gateways.insert(g)
  return g
}

/**
 * A subscription linked by uid, or made on the fly (identifier and operator needed); an existing subscription of the
 * company with the same identifier is reused and updated.
 * @throws subscription.unknown, subscription.missing.identifier, subscription.missing.operator, unknown.enum.value,
 *   operator.account.unknown, subscription.operator.and.operator.account.incompatible
 */
export async function resolveSubscription (tx: Tx, companyUid: string, input: SubscriptionInput, now: number): Promise<Subscription> {
  if (input.uid !== undefined) {
    const found = await tx.subscriptions.findByUid(companyUid, input.uid)
    if (found === undefined) throw new FleetError('subscription.unknown', [input.uid])
    return found
  }
  if (blank(input.identifier)) throw new FleetError('subscription.missing.identifier', ['subscription.identifier', 'the ICCID (or uid for an existing subscription)'])
  if (blank(input.operator)) throw new FleetError('subscription.missing.operator', ['subscription.operator', `one of ${OPERATORS.join(', ')}`])
  const operator = input.operator
  if (!(OPERATORS as readonly string[]).includes(operator)) throw new FleetError('unknown.enum.value', ['subscription.operator', operator, `one of ${OPERATORS.join(', ')}`])
  let operatorAccountUid: string | null = null
  if (input.operatorAccount?.uid !== undefined) {
    const account = await tx.catalogue.operatorAccount(companyUid, input.operatorAccount.uid)
    if (account === undefined) throw new FleetError('operator.account.unknown', [input.operatorAccount.uid])
    if (account.operator !== operator) {
      throw new FleetError('subscription.operator.and.operator.account.incompatible', [operator, account.uid])
    }
    operatorAccountUid = account.uid
  }
  const fields = {
    identifier: input.identifier,
    operator,
    operatorAccountUid,
    mobileNumber: input.mobileNumber ?? null,
    networkIdentifier: input.networkIdentifier ?? null,
    ipAddress: input.ipAddress ?? null,
    requestedIp: input.requestedIp ?? null,
    eid: input.eid ?? null,
    appletGeneration: input.appletGeneration ?? null,
    formFactor: input.formFactor ?? null,
    confType: input.confType ?? null,
    technology: input.technology ?? null,
    orderId: input.orderId ?? null,
    productRefName: input.productRefName ?? null,
    activationImei: input.activationImei ?? null,
    imeiLock: input.imeiLock == null
      ? null
      : { imeiLock: input.imeiLock.imeiLock ?? null, imeiLockDate: input.imeiLock.imeiLockDate ?? null, imeiUnlockedDate: input.imeiLock.imeiUnlockedDate ?? null }
  }
  const existing = await tx.subscriptions.findByIdentifier(companyUid, input.identifier)
  if (existing !== undefined) {
    // Given values complete the existing subscription; absent ones leave it as it is.
    const patch = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null))
    await tx.subscriptions.update(existing.uid, patch)
    return { ...existing, ...patch }
  }
  const s: Subscription = { uid: newUid(), companyUid, state: input.state ?? 'INVENTORY', creationDate: now, ...fields }
  await tx.subscriptions.insert(s)
  return s
}

/**
 * Applications linked by uid, public or of the company.
 * @throws application.missing, application.unknown, application.not.unique, system.applications.type.not.unique,
 *   applications.protocol.conflicts
 */
export async function resolveApplications (tx: Tx, companyUid: string, input: Array<{ uid?: string | undefined }>): Promise<Application[]> {
  const uids: string[] = []
  for (const a of input) {
    if (a.uid === undefined || a.uid === '') throw new FleetError('application.missing', ['applications.uid', 'every application is given by its uid'])
    if (uids.includes(a.uid)) throw new FleetError('application.not.unique', [a.uid])
    uids.push(a.uid)
  }
  const found = uids.length === 0 ? [] : await tx.applications.findByUids(companyUid, uids)
  const unknown = uids.find((u) => !found.some((a) => a.uid === u))
  if (unknown !== undefined) throw new FleetError('application.unknown', [unknown])
  const types = new Set<string>()
  const protocols = new Set<string>()
  for (const a of found) {
    if (types.has(a.type)) throw new FleetError('system.applications.type.not.unique', [a.type])
    types.add(a.type)
    // The protocols an application speaks are its communication types (docs/api.md#applications-and-templates).
    for (const { type: p } of a.communication) {
      if (protocols.has(p)) throw new FleetError('applications.protocol.conflicts', [p])
      protocols.add(p)
    }
  }
  return uids.map((u) => found.find((a) => a.uid === u) as Application)
}

// Not shown by docs/api.md: an M3DA password (and registration password) is 8 to 64 printable ASCII characters
// without spaces (set C: system.invalid.m3da.password, system.invalid.m3da.registration.password).
const M3DA_PASSWORD = /^[\x21-\x7e]{8,64}$/
const M3DA_PASSWORD_FORM = '8 to 64 printable ASCII characters, no spaces'

export function checkCommunication (c: Communication): void {
  // The poll would send the gateway's credentials there (docs/protocols/msci.md); names and loopback are
  // checked at each poll, once resolved, against MSCI_ALLOWED_NETWORKS.
  if (c.msci?.host != null && isNeverPolled(c.msci.host)) throw new FleetError('system.msci.host.forbidden', ['communication.msci.host', 'MSCI_ALLOWED_NETWORKS'])
  const m3da = c.m3da
  if (m3da?.password != null && !M3DA_PASSWORD.test(m3da.password)) throw new FleetError('system.invalid.m3da.password', ['communication.m3da.password', M3DA_PASSWORD_FORM])
  if (m3da?.registrationPassword != null && !M3DA_PASSWORD.test(m3da.registrationPassword)) {
    throw new FleetError('system.invalid.m3da.registration.password', ['communication.m3da.registrationPassword', M3DA_PASSWORD_FORM])
  }
}

// Device login passwords (docs/api.md#systems): a guessable one is refused. Spaces at either end are not counted, so
// that three spaces are no password of three characters; an empty one stays what it was, no login on that protocol.
const DEVICE_PASSWORD_MIN = 8

/** The MQTT and REST passwords a create or edit sets; those it leaves alone are not judged again. */
export function checkDevicePasswords (c: Communication | null | undefined): void {
  for (const protocol of ['mqtt', 'rest'] as const) {
    const password = c?.[protocol]?.password
    if (typeof password === 'string' && password !== '' && password.trim().length < DEVICE_PASSWORD_MIN) {
      throw new FleetError('system.password.too.weak', [`communication.${protocol}.password`, String(DEVICE_PASSWORD_MIN)])
    }
  }
}

/** Set C: gateway and subscription cannot be assembled when the SIM is locked to another IMEI. */
export function checkCompatibility (g: Gateway | null, s: Subscription | null): void {
  if (g === null || s === null || g.imei === null || s.activationImei === null) return
  const locked = s.imeiLock?.imeiLock
  if ((locked === true || locked === 'true') && s.activationImei !== g.imei) {
    throw new FleetError('system.invalid.compatibility', [g.uid, s.uid])
  }
}

/** Set C: a gateway or subscription already assigned to another system. */
export async function checkAssignment (tx: Tx, systemUid: string | null, g: Gateway | null, s: Subscription | null): Promise<void> {
  const gOwner = g === null ? undefined : await tx.systems.byGateway(g.uid)
  if (gOwner !== undefined && gOwner !== systemUid) throw new FleetError('system.invalid.assignment', ['gateway', g?.uid ?? ''])
  const sOwner = s === null ? undefined : await tx.systems.bySubscription(s.uid)
  if (sOwner !== undefined && sOwner !== systemUid) throw new FleetError('system.invalid.assignment', ['subscription', s?.uid ?? ''])
}

/** The device logins of a system: its gateway serial number and IMEI (docs/devices.md). */
export function commIdentifiers (g: Gateway | null): string[] {
  return g === null ? [] : [g.serialNumber, g.imei].filter((v): v is string => v !== null && v !== '')
}

/** Set C: a login may identify one system only, across the whole service. */
export async function bindCommIdentifiers (tx: Tx, systemUid: string, g: Gateway | null): Promise<void> {
  const ids = commIdentifiers(g)
  const owner = ids.length === 0 ? undefined : await tx.systems.commIdentifierOwner(ids, systemUid)
  if (owner !== undefined) throw new FleetError('system.communication.identifier.already.used', ids)
  await tx.systems.setCommIdentifiers(systemUid, ids)
}
