// Reading what the dynamic security plugin holds: some clients and roles by name (after a change), or all of them
// (a full sync), as the plan (dynsec-plan.ts) takes them.
import type { DynsecClient, DynsecCommand, DynsecResponse } from './dynsec-client.js'
import type { BrokerAcl, BrokerClient, BrokerRole } from './dynsec-plan.js'

// Clients and roles per list command of a full sync.
const LIST_PAGE = 1000

export class DynsecCommandError extends Error {
  constructor (command: string, reason: string) {
    super(`dynamic security refused ${command}: ${reason}`)
    this.name = 'DynsecCommandError'
  }
}

function toClient (raw: unknown): BrokerClient | undefined {
  const c = raw as { username?: unknown, textname?: unknown, roles?: unknown }
  if (typeof c?.username !== 'string') return undefined
  const roles = Array.isArray(c.roles) ? c.roles.flatMap((r: { rolename?: unknown }) => typeof r?.rolename === 'string' ? [r.rolename] : []) : []
  return { username: c.username, textname: typeof c.textname === 'string' ? c.textname : undefined, roles }
}

function toRole (raw: unknown): BrokerRole | undefined {
  const r = raw as { rolename?: unknown, acls?: unknown }
  if (typeof r?.rolename !== 'string') return undefined
  const acls: BrokerAcl[] = Array.isArray(r.acls)
    ? r.acls.flatMap((a: { acltype?: unknown, topic?: unknown, allow?: unknown }) =>
      typeof a?.acltype === 'string' && typeof a.topic === 'string' ? [{ acltype: a.acltype, topic: a.topic, allow: a.allow === true }] : [])
    : []
  return { rolename: r.rolename, acls }
}

/**
 * A create refused because the client or role exists: another writer (the periodic full sync, another process of the
 * cluster) made it after this one read the broker. The caller reads again and plans again.
 */
export class DynsecConflictError extends DynsecCommandError {
  constructor (command: string, reason: string) {
    super(command, reason)
    this.name = 'DynsecConflictError'
  }
}

const notFound = (r: DynsecResponse): boolean => r.error !== undefined && /not found/i.test(r.error)
const exists = (r: DynsecResponse): boolean => r.error !== undefined && /already exists/i.test(r.error)

function check (r: DynsecResponse | undefined, command: string): DynsecResponse {
  if (r === undefined) throw new DynsecCommandError(command, 'no response')
  if (r.error !== undefined) throw new DynsecCommandError(command, r.error)
  return r
}

/** The named roles and clients that exist. */
export async function readSome (dynsec: DynsecClient, rolenames: readonly string[], usernames: readonly string[]): Promise<{ roles: Map<string, BrokerRole>, clients: Map<string, BrokerClient> }> {
  const commands: DynsecCommand[] = [
    ...rolenames.map((rolename) => ({ command: 'getRole', rolename })),
    ...usernames.map((username) => ({ command: 'getClient', username }))
  ]
  const answers = await dynsec.run(commands)
  const roles = new Map<string, BrokerRole>()
  const clients = new Map<string, BrokerClient>()
  answers.forEach((a, i) => {
    if (notFound(a)) return
    const cmd = commands[i]?.command ?? 'get'
    const data = check(a, cmd).data
    if (cmd === 'getRole') { const r = toRole(data?.role); if (r !== undefined) roles.set(r.rolename, r) } else { const c = toClient(data?.client); if (c !== undefined) clients.set(c.username, c) }
  })
  return { roles, clients }
}

async function listAll<T> (dynsec: DynsecClient, command: 'listClients' | 'listRoles', key: 'clients' | 'roles', parse: (raw: unknown) => T | undefined): Promise<T[]> {
  const out: T[] = []
  for (let offset = 0; ; offset += LIST_PAGE) {
    const [answer] = await dynsec.run([{ command, verbose: true, count: LIST_PAGE, offset }])
    const items = check(answer, command).data?.[key]
    if (!Array.isArray(items) || items.length === 0) return out
    for (const raw of items) { const t = parse(raw); if (t !== undefined) out.push(t) }
    if (items.length < LIST_PAGE) return out
  }
}

/** Every client and role of the broker. */
export async function readAll (dynsec: DynsecClient): Promise<{ roles: Map<string, BrokerRole>, clients: Map<string, BrokerClient> }> {
  const roles = await listAll(dynsec, 'listRoles', 'roles', toRole)
  const clients = await listAll(dynsec, 'listClients', 'clients', toClient)
  return { roles: new Map(roles.map((r) => [r.rolename, r])), clients: new Map(clients.map((c) => [c.username, c])) }
}

/**
 * Runs the plan's commands.
 * @throws DynsecConflictError when a create met a client or role made meanwhile (after the other commands ran)
 * @throws DynsecCommandError naming the first command refused otherwise
 */
export async function apply (dynsec: DynsecClient, commands: readonly DynsecCommand[]): Promise<void> {
  const answers = await dynsec.run(commands)
  // A client or role deleted meanwhile by another process is what was wanted (gone, or no connection left to kick).
  const refused = answers.flatMap((a, i) => {
    const cmd = commands[i]?.command ?? ''
    return a.error === undefined || (/^(delete|disable|enable)/.test(cmd) && notFound(a)) ? [] : [{ a, cmd }]
  })
  const other = refused.find(({ a, cmd }) => !(cmd.startsWith('create') && exists(a)))
  if (other !== undefined) check(other.a, other.cmd)
  const conflict = refused[0]
  if (conflict !== undefined) throw new DynsecConflictError(conflict.cmd, conflict.a.error ?? '')
}
