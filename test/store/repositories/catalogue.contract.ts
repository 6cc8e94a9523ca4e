// CatalogueRepository (storage/repositories/catalogue.repository.ts): puts that replace by key, the registration
// code of a product, templates searched by contains (LIKE escaped) and unique by name, options public or a company's.
import { expect } from 'vitest'
import { FleetError } from '../../../core/errors.js'
import { defineContract, newCompany, uniq } from './store.js'

export const catalogueContract = defineContract('CatalogueRepository', {
  'offers with a limit past int4 and text[] types; operator accounts, the first by name for an operator': async ({ repos }) => {
    const co = await newCompany(repos)
    const offer = { uid: uniq('offer'), companyUid: co, name: 'Big', limit: 5_000_000_000, types: ['FX30', 'a,"b"'] }
    await repos.catalogue.putOffer(offer)
    expect(await repos.catalogue.offer(co, offer.uid)).toMatchObject(offer)
    expect(await repos.catalogue.offerByName(co, 'Big')).toMatchObject({ uid: offer.uid, limit: 5_000_000_000 })
    expect(await repos.catalogue.offerByName(co, 'big')).toBeUndefined()
    for (const name of ['Zed', 'Alpha']) {
      await repos.catalogue.putOperatorAccount({ uid: uniq('acc'), companyUid: co, name, operator: 'ORANGE', swapSupported: name === 'Alpha' })
    }
    expect(await repos.catalogue.operatorAccountByOperator(co, 'ORANGE')).toMatchObject({ name: 'Alpha', swapSupported: true })
    expect(await repos.catalogue.operatorAccountByOperator(co, 'SFR')).toBeUndefined()
  },

  'inventory gateways answer whether their product needs a registration code': async ({ repos }) => {
    const co = await newCompany(repos)
    const type = uniq('TYPE')
    const serialNumber = uniq('SN')
    await repos.catalogue.putInventoryGateway({ companyUid: co, serialNumber, imei: null, type, registrationCode: 'RC-1' })
    expect(await repos.catalogue.inventoryGateway(co, serialNumber)).toEqual({ companyUid: co, serialNumber, imei: null, type, registrationCode: 'RC-1', needsRegistrationCode: false })
    await repos.catalogue.putGatewayProduct({ type, registrationCode: true })
    expect((await repos.catalogue.inventoryGateway(co, serialNumber))?.needsRegistrationCode).toBe(true)
    await repos.catalogue.putGatewayProduct({ type, registrationCode: false })
    expect((await repos.catalogue.inventoryGateway(co, serialNumber))?.needsRegistrationCode).toBe(false)
    expect(await repos.catalogue.inventoryGateway(await newCompany(repos), serialNumber)).toBeUndefined()
  },

  'templates: JSON settings, found by contains in name order, a second of one name is template.not.unique': async ({ repos }) => {
    const co = await newCompany(repos)
    const t = { uid: uniq('tpl'), companyUid: co, name: 'Night_1', settings: [{ key: 'a', value: { n: 1.5, s: 'é"' } }, { key: 'b', value: null }] }
    await repos.catalogue.insertTemplate(t)
    await repos.catalogue.insertTemplate({ ...t, uid: uniq('tpl'), name: 'Work 100%' })
    const err: unknown = await repos.catalogue.insertTemplate({ ...t, uid: uniq('tpl') }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(FleetError)
    expect(err).toMatchObject({ code: 'template.not.unique', params: ['Night_1'] })
    expect(await repos.catalogue.template(co, t.uid)).toEqual(t)
    const names = async (name: string | undefined): Promise<[number, string[]]> => {
      const f = await repos.catalogue.templates(co, { name }, { offset: 0, size: 10 })
      return [f.count, f.items.map((x) => x.name)]
    }
    expect(await names('nIGHT')).toEqual([1, ['Night_1']])
    expect(await names('work')).toEqual([1, ['Work 100%']])
    expect(await names('T_1')).toEqual([1, ['Night_1']])
    expect(await names('0%')).toEqual([1, ['Work 100%']])
    expect(await names('T%1')).toEqual([0, []])
    expect(await names(undefined)).toEqual([2, ['Night_1', 'Work 100%']])
    await repos.catalogue.putTemplate({ ...t, settings: [] })
    expect((await repos.catalogue.templateByName(co, 'Night_1'))?.settings).toEqual([])
  },

  'options: public (no company) or a company\'s, found by type and name, replaced by uid': async ({ repos }) => {
    const co = await newCompany(repos)
    const name = uniq('opt')
    const pub = { uid: uniq('o'), companyUid: null, type: 'SMS', name }
    const own = { uid: uniq('o'), companyUid: co, type: 'SMS', name, config: '{"x":1}' }
    await repos.catalogue.putOption(pub)
    await repos.catalogue.putOption(own)
    expect(await repos.catalogue.optionByName(null, 'SMS', name)).toMatchObject({ uid: pub.uid, companyUid: null })
    expect(await repos.catalogue.optionByName(co, 'SMS', name)).toMatchObject({ uid: own.uid, config: '{"x":1}' })
    await repos.catalogue.putOption({ uid: own.uid, companyUid: co, type: 'SMS', name: `${name}-2` })
    expect(await repos.catalogue.optionByName(co, 'SMS', name)).toBeUndefined()
    expect(await repos.catalogue.optionByName(co, 'SMS', `${name}-2`)).toMatchObject({ uid: own.uid })
  }
})
