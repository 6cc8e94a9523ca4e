// The dynamic security plan against a broker simulated in memory: whatever the broker held, after the
// plan it holds exactly the wanted logins, leaves what is not the service's alone, and a second plan does nothing.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { BrokerLogin } from '../../../core/ports/broker.js'
import type { DynsecCommand } from '../../../ingest/broker-sync/dynsec-client.js'
import {
  aclsFor, CERTIFICATE_ONLY, fingerprint, managedBy, passwordMark, planSync, roleName, usableLogin, type BrokerClient, type BrokerRole
} from '../../../ingest/broker-sync/dynsec-plan.js'

interface Sim { clients: Map<string, BrokerClient & { password?: string }>, roles: Map<string, BrokerRole> }

/** What Mosquitto does with each command (only those the plan sends); a refused command fails the test. */
function run (sim: Sim, commands: readonly DynsecCommand[]): void {
  for (const c of commands) {
    const name = String(c.username ?? c.rolename)
    const roles = (c.roles as Array<{ rolename: string }> | undefined)?.map((r) => r.rolename) ?? []
    switch (c.command) {
      case 'createClient':
        if (sim.clients.has(name)) throw new Error(`client ${name} exists`)
        sim.clients.set(name, { username: name, textname: c.textname as string, roles, password: c.password as string })
        break
      case 'modifyClient': {
        const old = sim.clients.get(name)
        if (old === undefined) throw new Error(`no client ${name}`)
        // Mosquitto keeps the password of a modifyClient without one: it cannot take a password away.
        sim.clients.set(name, { username: name, textname: c.textname as string, roles, password: c.password as string | undefined ?? old.password })
        break
      }
      case 'deleteClient': sim.clients.delete(name); break
      case 'createRole':
        if (sim.roles.has(name)) throw new Error(`role ${name} exists`)
        sim.roles.set(name, { rolename: name, acls: c.acls as BrokerRole['acls'] })
        break
      case 'modifyRole': sim.roles.set(name, { rolename: name, acls: c.acls as BrokerRole['acls'] }); break
      case 'deleteRole': sim.roles.delete(name); break
      default: throw new Error(`unexpected ${c.command}`)
    }
  }
}

const RESERVED = new Set(['fleet-admin'])
const ids = fc.constantFrom('SN1', 'SN2', '35000001', '35000002', 'SN+', 'a/b', '$SYS', '', 'fleet-admin', 'OPERATOR')
const uids = fc.constantFrom('s1', 's2', 's3')

// The store's logins: an identifier belongs to one system at most (comm_identifiers' key).
// A null password: a login by certificate only (BROKER_CA_FILE), held without a password.
const loginsArb = fc.uniqueArray(fc.record({ identifier: ids, systemUid: uids, password: fc.constantFrom<string | null>('p1', 'p2', null) }), { selector: (l) => l.identifier })

// Whatever the broker may hold: clients of the service (right, stale, of systems gone), others' clients, roles.
const clientArb = fc.record({
  username: ids,
  textname: fc.oneof(fc.constant(undefined), fc.constant('Dynsec admin user'), fc.tuple(fc.constantFrom('s1', 's2', 's9'), fc.constantFrom('p1', 'p2', CERTIFICATE_ONLY)).map(([s, p]) => `fleet-system ${s} ${p}`)),
  roles: fc.array(fc.constantFrom(roleName('s1'), roleName('s2'), roleName('s9'), 'admin'), { maxLength: 2 })
})
const roleArb = fc.record({ rolename: fc.constantFrom(roleName('s1'), roleName('s2'), roleName('s9'), 'admin'), acls: fc.subarray(aclsFor(['SN1', 'SN2', '35000001', 'OPERATOR'])) })

function simOf (clients: Array<BrokerClient>, roles: BrokerRole[]): Sim {
  // A client marked with a system but a password fingerprint of p1/p2 stands for "fleet-system <uid> <fp>", holding that
  // password; one marked as a certificate login holds none.
  const fixed = clients.map((c) => {
    const m = /^fleet-system (\S+) (p\d)$/.exec(c.textname ?? '')
    return m === null ? c : { ...c, textname: `fleet-system ${m[1]} ${fingerprint(c.username, m[2] ?? '')}`, password: m[2] }
  })
  return { clients: new Map(fixed.map((c) => [c.username, c])), roles: new Map(roles.map((r) => [r.rolename, r])) }
}

const full = (logins: BrokerLogin[], sim: Sim): ReturnType<typeof planSync> => {
  const systemUids = new Set(logins.map((l) => l.systemUid))
  for (const r of sim.roles.keys()) if (r.startsWith('fleet-system-')) systemUids.add(r.slice('fleet-system-'.length))
  return planSync({ systemUids: [...systemUids], logins, clients: sim.clients, roles: sim.roles, strays: true, reserved: RESERVED })
}

describe('planSync', () => {
  it('a full sync leaves the broker with the wanted logins only, never touches others\' clients, and is idempotent', () => {
    fc.assert(fc.property(loginsArb, fc.array(clientArb, { maxLength: 8 }), fc.array(roleArb, { maxLength: 4 }), (logins, clients, roles) => {
      const sim = simOf(clients, roles)
      const foreign = [...sim.clients.values()].filter((c) => managedBy(c) === undefined)
      run(sim, full(logins, sim).commands)
      for (const c of foreign) expect(sim.clients.get(c.username)).toEqual(c)
      for (const l of logins) {
        const c = sim.clients.get(l.identifier)
        if (!usableLogin(l.identifier, RESERVED)) { expect(c === undefined || managedBy(c) === undefined).toBe(true); continue }
        if (foreign.some((f) => f.username === l.identifier)) continue // someone else's account: skipped, not taken
        expect(c?.roles).toEqual([roleName(l.systemUid)])
        expect(managedBy(c as BrokerClient)).toEqual({ systemUid: l.systemUid, fingerprint: passwordMark(l) })
        // A certificate login has no password at all: none logs it in.
        expect(c?.password).toBe(l.password ?? undefined)
        const topics = sim.roles.get(roleName(l.systemUid))?.acls.map((a) => a.topic) ?? []
        expect(topics).toContain(`${l.identifier}/#`)
      }
      const managed = [...sim.clients.values()].filter((c) => managedBy(c) !== undefined).map((c) => c.username).sort()
      const wanted = logins.filter((l) => usableLogin(l.identifier, RESERVED) && !foreign.some((f) => f.username === l.identifier)).map((l) => l.identifier).sort()
      expect(managed).toEqual(wanted)
      const again = full(logins, sim)
      expect(again.commands).toEqual([])
    }), { numRuns: 500 })
  })

  it('after a change, the systems named reach the same broker state as a full sync would give them', () => {
    fc.assert(fc.property(loginsArb, loginsArb, (before, after) => {
      const sim: Sim = { clients: new Map(), roles: new Map() }
      run(sim, full(before, sim).commands)
      // The change: the store now holds `after`; every system is told (as the unit of work tells those it touched).
      const touched = [...new Set([...before, ...after].map((l) => l.systemUid))]
      const roles = new Map([...sim.roles].filter(([name]) => touched.some((u) => roleName(u) === name)))
      run(sim, planSync({ systemUids: touched, logins: after, clients: sim.clients, roles, strays: false, reserved: RESERVED }).commands)
      expect(full(after, sim).commands).toEqual([])
    }), { numRuns: 500 })
  })

  it('a client whose password and role are right is left alone (changing one makes Mosquitto disconnect it)', () => {
    const l = { systemUid: 's1', identifier: 'SN1', password: 'p1' }
    const sim: Sim = { clients: new Map(), roles: new Map() }
    const first = full([l], sim)
    expect(first.counts).toMatchObject({ clients: { created: 1 }, roles: { created: 1 } })
    run(sim, first.commands)
    expect(full([l], sim).counts).toMatchObject({ clients: { unchanged: 1, updated: 0 }, roles: { unchanged: 1 } })
    expect(full([{ ...l, password: 'p2' }], sim).commands).toEqual([expect.objectContaining({ command: 'modifyClient', username: 'SN1', password: 'p2' })])
  })

  it('never gives a device a login that is a wildcard, a topic separator, a $ topic or the service\'s account', () => {
    for (const id of ['+', '#', 'a/b', '$SYS', '', 'x\u0000', 'fleet-admin']) expect(usableLogin(id, RESERVED)).toBe(false)
    expect(usableLogin('SN-1.2_3', RESERVED)).toBe(true)
  })

  it('holds a certificate login without a password, and makes a client that had one again without it', () => {
    const sim: Sim = { clients: new Map(), roles: new Map() }
    const cert = { systemUid: 's1', identifier: 'SN1', password: null }
    const created = full([cert], sim)
    expect(created.commands).toContainEqual({ command: 'createClient', username: 'SN1', textname: 'fleet-system s1 certificate', roles: [{ rolename: roleName('s1') }] })
    run(sim, created.commands)
    expect(full([cert], sim).commands).toEqual([])
    // A password given: modifyClient sets it. Taken away (the application now asks for x509): deleted and made again.
    const withPassword = full([{ ...cert, password: 'p1' }], sim)
    expect(withPassword.commands).toEqual([expect.objectContaining({ command: 'modifyClient', username: 'SN1', password: 'p1' })])
    run(sim, withPassword.commands)
    const back = full([cert], sim)
    expect(back.commands.map((c) => c.command)).toEqual(['deleteClient', 'createClient'])
    expect(back.counts.clients).toMatchObject({ updated: 1, created: 0, deleted: 0 })
    run(sim, back.commands)
    expect(sim.clients.get('SN1')?.password).toBeUndefined()
  })
})
