// ApplicationsRepository, the release side (storage/repositories/applications-releases.ts): a released application
// with its owner and binaries in declared order, publishing (the first date kept), what keeps an application from
// being deleted (an open operation naming it, a system having it), and the artifacts a deletion frees.
import { expect } from 'vitest'
import type { StoredBinary } from '../../../core/domain/application-package.js'
import { defineContract, newCompany, newSystem, uniq, type Repos } from './store.js'

type App = Parameters<Repos['applications']['insert']>[0]

const app = (companyUid: string | null, patch: Partial<App> = {}): App => ({
  uid: uniq('app'), companyUid, name: uniq('App'), revision: '1.0', type: uniq('type'), category: 'APPLICATION', communication: [], data: [], ...patch
})

const binary = (file: string, artifact: string, size = 5_000_000_000): StoredBinary => ({
  file, revision: '1.0', type: 'FULL', size, sha256: artifact, md5: 'd41d8cd98f00b204e9800998ecf8427e', artifact
})

export const applicationsReleasesContract = defineContract('ApplicationsRepository (releases)', {
  'inserts a released application with its owner and binaries in declared order; one made otherwise is PUBLISHED': async ({ repos }) => {
    const co = await newCompany(repos)
    const userUid = uniq('user')
    await repos.users.insert({ uid: userUid, email: `${userUid}@test.local`, name: 'Réléase Owner', phoneNumber: null, passwordHash: null, companyUid: co }, 1)
    const released = app(co)
    // Sizes past 2^32 come back as numbers (bigint columns).
    const binaries = [binary('z/last-declared-first.bin', uniq('k1')), binary('a.bin', uniq('k2'), 12)]
    await repos.applications.insertReleased({ application: released, ownerUid: userUid, applicationManager: 'MQTT_SW', binaries }, 1_767_225_600_000)
    const plain = app(co)
    await repos.applications.insert(plain, 1_700_000_000_000)
    const got = await repos.applications.releases([released.uid, plain.uid, 'none'])
    expect(got.get(released.uid)).toEqual({
      state: 'RELEASED', released: 1_767_225_600_000, published: null, owner: { uid: userUid, name: 'Réléase Owner' }, applicationManager: 'MQTT_SW', binaries
    })
    expect(got.get(plain.uid)).toEqual({ state: 'PUBLISHED', released: null, published: 1_700_000_000_000, owner: null, applicationManager: null, binaries: [] })
    expect(got.has('none')).toBe(false)
    expect((await repos.applications.findByUids(co, [released.uid]))[0]).toEqual(released)
    await expect(repos.applications.insertReleased({ application: { ...released, uid: uniq('app') }, ownerUid: null, applicationManager: null, binaries: [] }, 2))
      .rejects.toMatchObject({ code: 'application.not.unique' })
    expect(await repos.applications.releases([])).toEqual(new Map())
  },

  'publishes, keeping the first published date': async ({ repos }) => {
    const co = await newCompany(repos)
    const a = app(co)
    await repos.applications.insertReleased({ application: a, ownerUid: null, applicationManager: null, binaries: [] }, 10)
    await repos.applications.publish(a.uid, 20)
    await repos.applications.publish(a.uid, 30)
    expect((await repos.applications.releases([a.uid])).get(a.uid)).toMatchObject({ state: 'PUBLISHED', released: 10, published: 20 })
  },

  'counts the open operations naming an application and the systems having it': async ({ repos, db }) => {
    const co = await newCompany(repos)
    const a = app(co)
    await repos.applications.insert(a, 1)
    expect(await repos.applications.inUse(a.uid)).toEqual({ operations: 0, systems: 0 })
    const operation = async (state: string, application: string): Promise<void> => {
      await db.query(
        `INSERT INTO operations (uid, company_uid, type, state, created_at, timeout_date, parameters)
         VALUES ($1, $2, 'APPLICATION_PUBLISH', $3, 1, 2, $4::jsonb)`, [uniq('op'), co, state, JSON.stringify({ application })])
    }
    await operation('FINISHED', a.uid)
    await operation('IN_PROGRESS', uniq('other-app'))
    expect(await repos.applications.inUse(a.uid)).toEqual({ operations: 0, systems: 0 })
    await operation('SCHEDULED', a.uid)
    await operation('IN_PROGRESS', a.uid)
    const s = await newSystem(repos, co)
    await repos.systems.setApplications(s, [a.uid])
    expect(await repos.applications.inUse(a.uid)).toEqual({ operations: 2, systems: 1 })
  },

  'deletes an application and its binaries, answering the artifacts no other application uses': async ({ repos }) => {
    const co = await newCompany(repos)
    const [shared, own, twice] = [uniq('shared'), uniq('own'), uniq('twice')]
    const first = app(co)
    const second = app(co)
    await repos.applications.insertReleased({ application: first, ownerUid: null, applicationManager: null, binaries: [binary('a', shared), binary('b', own), binary('c', twice), binary('d', twice)] }, 1)
    await repos.applications.insertReleased({ application: second, ownerUid: null, applicationManager: null, binaries: [binary('a', shared)] }, 1)
    expect(await repos.applications.artifactsInUse([shared, own, twice, 'none'])).toEqual(new Set([shared, own, twice]))
    expect((await repos.applications.delete(first.uid)).sort()).toEqual([own, twice].sort())
    expect(await repos.applications.findByUids(co, [first.uid])).toEqual([])
    expect(await repos.applications.artifactsInUse([shared, own, twice])).toEqual(new Set([shared]))
    expect(await repos.applications.delete(second.uid)).toEqual([shared])
    expect(await repos.applications.delete(second.uid)).toEqual([])
  }
})
