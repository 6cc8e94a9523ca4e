// What the dynamic security plugin must be told so that it holds the systems' device logins: pure, from
// the logins the store holds and what the broker holds now. The service manages:
// - a role per system, `fleet-system-<uid>`, allowing only `<id>/#` for each of its logins (docs/devices.md:
//   a device publishes and subscribes only under `<username>/`; Mosquitto 2.0's dynamic security has no %u);
// - a client per login (the serial number, the IMEI), named by it, with the MQTT password, in its system's role,
//   marked by its textname `fleet-system <uid> <fingerprint>`. A client without the mark is someone else's: the
//   service never changes nor deletes it.
// - a login by certificate only (BrokerLogin.password null) is a client without a password, marked
//   `fleet-system <uid> certificate`: no password logs it in, and a certificate whose CN names it gets its role
//   (docs/cluster.md#device-certificates-with-the-external-broker).
// Changing a client makes Mosquitto disconnect it, so a client whose password and role are already right is left
// alone: the broker never answers a password, the fingerprint in the mark tells whether it is the stored one.
import { createHash } from 'node:crypto'
import type { BrokerLogin } from '../../core/ports/broker.js'
import type { DynsecCommand } from './dynsec-client.js'

export const ROLE_PREFIX = 'fleet-system-'
const MARK = 'fleet-system'

export interface BrokerClient { username: string, textname: string | undefined, roles: string[] }
export interface BrokerAcl { acltype: string, topic: string, allow: boolean }
export interface BrokerRole { rolename: string, acls: BrokerAcl[] }

export interface SyncCounts {
  clients: { created: number, updated: number, deleted: number, unchanged: number, skipped: number }
  roles: { created: number, updated: number, deleted: number, unchanged: number }
}

export const noCounts = (): SyncCounts => ({
  clients: { created: 0, updated: 0, deleted: 0, unchanged: 0, skipped: 0 },
  roles: { created: 0, updated: 0, deleted: 0, unchanged: 0 }
})

export const roleName = (systemUid: string): string => ROLE_PREFIX + systemUid

// Not secret enough to be a password store, and not meant to be one: it tells a changed password from the same one.
// Salted with the login, so that two devices with one password do not share a mark.
export function fingerprint (identifier: string, password: string): string {
  return createHash('sha256').update(`fleet-broker\u0000${identifier}\u0000${password}`).digest('base64url').slice(0, 22)
}

// The mark of a client without a password; a fingerprint is 22 characters, so never this word.
export const CERTIFICATE_ONLY = 'certificate'

/** What the mark says of the login's password: its fingerprint, or that it has none. */
export const passwordMark = (l: BrokerLogin): string => l.password === null ? CERTIFICATE_ONLY : fingerprint(l.identifier, l.password)

export const textname = (l: BrokerLogin): string => `${MARK} ${l.systemUid} ${passwordMark(l)}`

/** The system a client of the service belongs to; undefined for a client the service does not manage. */
export function managedBy (c: BrokerClient): { systemUid: string, fingerprint: string } | undefined {
  const [mark, systemUid, fp, ...rest] = (c.textname ?? '').split(' ')
  if (mark !== MARK || systemUid === undefined || systemUid === '' || fp === undefined || rest.length > 0) return undefined
  return { systemUid, fingerprint: fp }
}

/**
 * A login a broker can hold: as a topic level it must not be empty, hold a wildcard or a separator, nor start with
 * `$` (MQTT 3.1.1 §4.7); a serial number is free text, and `+` as a login would own every device's topics.
 * The service's own account is never a device.
 */
export function usableLogin (identifier: string, reserved: ReadonlySet<string>): boolean {
  return identifier !== '' && !/[+#/]/.test(identifier) && !identifier.includes('\u0000') && !identifier.startsWith('$') && !reserved.has(identifier) &&
    Buffer.byteLength(identifier) <= 65_535
}

export function aclsFor (identifiers: readonly string[]): BrokerAcl[] {
  return [...identifiers].sort().flatMap((id) => ['publishClientSend', 'publishClientReceive', 'subscribePattern', 'unsubscribePattern']
    .map((acltype) => ({ acltype, topic: `${id}/#`, allow: true })))
}

const aclKey = (a: BrokerAcl): string => `${a.acltype} ${a.allow ? 1 : 0} ${a.topic}`
export const sameAcls = (a: readonly BrokerAcl[], b: readonly BrokerAcl[]): boolean =>
  a.length === b.length && [...a].map(aclKey).sort().join('\n') === [...b].map(aclKey).sort().join('\n')

/** The logins a role grants (its `<id>/#` topics): where a system's former logins are found once the store forgot them. */
export function roleLogins (role: BrokerRole): string[] {
  return [...new Set(role.acls.filter((a) => a.topic.endsWith('/#')).map((a) => a.topic.slice(0, -2)))]
}

export interface PlanInput {
  /** The systems to bring in step (a system absent from the store has no logins here). */
  systemUids: readonly string[]
  logins: readonly BrokerLogin[]
  /** The broker's clients that may matter: the logins wanted, those the systems' roles grant (and, for a full sync, all). */
  clients: ReadonlyMap<string, BrokerClient>
  /** The broker's roles of these systems. */
  roles: ReadonlyMap<string, BrokerRole>
  /** A full sync: also delete every managed client that no system wants (whatever system it names). */
  strays: boolean
  /** Logins never given to a device (the service's own account). */
  reserved: ReadonlySet<string>
}

/** The commands, in the order to run them, and what they do. */
export function planSync (input: PlanInput): { commands: DynsecCommand[], counts: SyncCounts } {
  const counts = noCounts()
  const deletes: DynsecCommand[] = []
  const roleCommands: DynsecCommand[] = []
  const clientCommands: DynsecCommand[] = []
  const roleDeletes: DynsecCommand[] = []
  const wanted = new Map<string, BrokerLogin>()
  for (const l of input.logins) {
    if (usableLogin(l.identifier, input.reserved)) wanted.set(l.identifier, l)
    else counts.clients.skipped++
  }
  const bySystem = new Map<string, string[]>(input.systemUids.map((uid) => [uid, []]))
  for (const l of wanted.values()) bySystem.get(l.systemUid)?.push(l.identifier)

  for (const [uid, ids] of bySystem) {
    const rolename = roleName(uid)
    const role = input.roles.get(rolename)
    for (const old of role === undefined ? [] : roleLogins(role)) {
      const c = input.clients.get(old)
      if (c !== undefined && !wanted.has(old) && managedBy(c)?.systemUid === uid && !input.strays) {
        deletes.push({ command: 'deleteClient', username: old })
        counts.clients.deleted++
      }
    }
    if (ids.length === 0) {
      if (role !== undefined) { roleDeletes.push({ command: 'deleteRole', rolename }); counts.roles.deleted++ }
      continue
    }
    const acls = aclsFor(ids)
    if (role === undefined) { roleCommands.push({ command: 'createRole', rolename, textname: 'fleet-system', acls }); counts.roles.created++ } else if (!sameAcls(acls, role.acls)) { roleCommands.push({ command: 'modifyRole', rolename, acls }); counts.roles.updated++ } else counts.roles.unchanged++
  }

  for (const l of wanted.values()) {
    const c = input.clients.get(l.identifier)
    // No password field at all for a certificate login: Mosquitto hashes an empty one, which would then log in.
    const fields = { username: l.identifier, ...(l.password === null ? {} : { password: l.password }), textname: textname(l), roles: [{ rolename: roleName(l.systemUid) }] }
    if (c === undefined) { clientCommands.push({ command: 'createClient', ...fields }); counts.clients.created++; continue }
    const owner = managedBy(c)
    if (owner === undefined) { counts.clients.skipped++; continue }
    const same = owner.systemUid === l.systemUid && owner.fingerprint === passwordMark(l) &&
      c.roles.length === 1 && c.roles[0] === roleName(l.systemUid)
    if (same) { counts.clients.unchanged++; continue }
    counts.clients.updated++
    // modifyClient cannot take a password away: a client that had one is made again without it.
    if (l.password === null && owner.fingerprint !== CERTIFICATE_ONLY) {
      deletes.push({ command: 'deleteClient', username: l.identifier })
      clientCommands.push({ command: 'createClient', ...fields })
    } else clientCommands.push({ command: 'modifyClient', ...fields })
  }

  if (input.strays) {
    for (const c of input.clients.values()) {
      if (!wanted.has(c.username) && managedBy(c) !== undefined) { deletes.push({ command: 'deleteClient', username: c.username }); counts.clients.deleted++ }
    }
  }
  return { commands: [...deletes, ...roleCommands, ...clientCommands, ...roleDeletes], counts }
}
