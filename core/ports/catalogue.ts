// The catalogue's port: offers, operator accounts, setting templates, options and the gateway inventory.
import type { Offer, SystemOption } from '../domain/system.js'
import type { Found, Page } from '../paging.js'

export interface OperatorAccount { uid: string, companyUid: string, name: string, operator: string, swapSupported: boolean }
export interface SettingTemplate { uid: string, companyUid: string, name: string, settings: Array<{ key: string, value: unknown }> }
export interface OptionRecord extends SystemOption { companyUid: string | null }

/**
 * A gateway of a company's inventory (registration codes; migration 0017): what its manufacturer shipped,
 * and whether its product needs the registration code to be registered (docs/operations.md#csv-operations).
 */
export interface InventoryGateway {
  companyUid: string
  serialNumber: string
  imei: string | null
  type: string
  registrationCode: string | null
  needsRegistrationCode: boolean
}

export interface CatalogueRepository {
  /** Marks a gateway product (a gateway type) as needing a registration code, or not. */
  putGatewayProduct (p: { type: string, registrationCode: boolean }): Promise<void>
  putInventoryGateway (g: Omit<InventoryGateway, 'needsRegistrationCode'>): Promise<void>
  inventoryGateway (companyUid: string, serialNumber: string): Promise<InventoryGateway | undefined>
  offer (companyUid: string, uid: string): Promise<Offer | undefined>
  offerByName (companyUid: string, name: string): Promise<Offer | undefined>
  putOffer (o: Offer): Promise<void>
  operatorAccount (companyUid: string, uid: string): Promise<OperatorAccount | undefined>
  operatorAccountByName (companyUid: string, name: string): Promise<OperatorAccount | undefined>
  /** The company's account of that operator (the first by name when it has several). */
  operatorAccountByOperator (companyUid: string, operator: string): Promise<OperatorAccount | undefined>
  putOperatorAccount (a: OperatorAccount): Promise<void>
  template (companyUid: string, uid: string): Promise<SettingTemplate | undefined>
  templateByName (companyUid: string, name: string): Promise<SettingTemplate | undefined>
  putTemplate (t: SettingTemplate): Promise<void>
  /** The company's templates whose name contains `name` (any when absent), by name. */
  templates (companyUid: string, filter: { name?: string | undefined }, page: Page): Promise<Found<SettingTemplate>>
  /** @throws FleetError template.not.unique when the company has a template of that name */
  insertTemplate (t: SettingTemplate): Promise<void>
  optionByName (companyUid: string | null, type: string, name: string): Promise<OptionRecord | undefined>
  putOption (o: OptionRecord): Promise<void>
}
