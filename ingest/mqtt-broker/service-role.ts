// What the service's own account (MQTT_URL) must be allowed at a Mosquitto with dynamic security: read
// the devices' data and acks through the shared subscriptions, and publish their tasks. An account made by
// `mosquitto_ctrl dynsec init` may read everything but publish only to the control topic, so the service gives its
// account a role of its own, once: changing a client's roles makes Mosquitto disconnect its connections, so nothing
// is sent when the role and the account already hold what is needed.
import { brokerAccount, type DynsecClient } from '../broker-sync/dynsec-client.js'
import { readSome } from '../broker-sync/dynsec-state.js'
import { sameAcls, type BrokerAcl, type BrokerRole } from '../broker-sync/dynsec-plan.js'

export const SERVICE_ROLE = 'fleet-service'

/** The role's ACLs for the topics the ingest reads (`filters`, shared) and the tasks topics it writes. */
export function serviceAcls (filters: readonly string[]): BrokerAcl[] {
  return [
    ...filters.map((topic) => ({ acltype: 'subscribePattern', topic, allow: true })),
    { acltype: 'publishClientReceive', topic: '+/messages/json', allow: true },
    { acltype: 'publishClientReceive', topic: '+/acks/json', allow: true },
    { acltype: 'publishClientSend', topic: '+/tasks/json', allow: true }
  ]
}

/**
 * Gives the MQTT_URL account the service role (created or brought up to date). `dynsec` makes a client of the
 * plugin; each is closed after use: adding a role to the account disconnects the account's connections, that one
 * included, before the answer reaches it, so the result is read again on a new connection.
 * @throws when the broker refuses, or the account still lacks the role
 */
export async function ensureServiceRole (dynsec: (timeoutMs: number) => DynsecClient, mqttUrl: string, filters: readonly string[]): Promise<void> {
  const { username } = brokerAccount(mqttUrl)
  if (username === undefined) return // an anonymous account: the broker's own configuration decides
  const acls = serviceAcls(filters)
  const read = async (): Promise<{ role: BrokerRole | undefined, hasRole: boolean }> => {
    const client = dynsec(10_000)
    try {
      const { roles, clients } = await readSome(client, [SERVICE_ROLE], [username])
      return { role: roles.get(SERVICE_ROLE), hasRole: clients.get(username)?.roles.includes(SERVICE_ROLE) === true }
    } finally { await client.close() }
  }
  const { role, hasRole } = await read()
  const roleCommands = role === undefined
    ? [{ command: 'createRole', rolename: SERVICE_ROLE, textname: 'the fleet service', acls }]
    : sameAcls(role.acls, acls) ? [] : [{ command: 'modifyRole', rolename: SERVICE_ROLE, acls }]
  if (roleCommands.length > 0) {
    const client = dynsec(10_000)
    try {
      const [answer] = await client.run(roleCommands)
      if (answer?.error !== undefined) throw new Error(`dynamic security refused ${roleCommands[0]?.command ?? ''} of the service role: ${answer.error}`)
    } finally { await client.close() }
  }
  if (hasRole) return
  const client = dynsec(2000)
  // The answer may never come (the connection is kicked first): what counts is the role read again below.
  try { await client.run([{ command: 'addClientRole', username, rolename: SERVICE_ROLE }]).catch(() => {}) } finally { await client.close() }
  if (!(await read()).hasRole) throw new Error(`dynamic security did not give the service's account the role ${SERVICE_ROLE}`)
}
