// The gateways' port.
import type { Gateway } from '../domain/system.js'
import type { GatewayFilter, GatewaySort } from '../domain/parts.js'
import type { Found, Page, Sort } from '../paging.js'

export interface GatewaysRepository {
  findByUid (companyUid: string, uid: string): Promise<Gateway | undefined>
  /** GET /api/v1/gateways: the company's gateways matching every given filter, sorted and paged. */
  find (companyUid: string, filter: GatewayFilter, sort: Array<Sort<GatewaySort>>, page: Page): Promise<Found<Gateway>>
  /** Gateways of the company holding any of the given identifiers. */
  findByIdentifiers (companyUid: string, ids: { imei?: string | null, serialNumber?: string | null, macAddress?: string | null }): Promise<Gateway[]>
  insert (g: Gateway): Promise<void>
  update (uid: string, patch: Partial<Omit<Gateway, 'uid' | 'companyUid' | 'creationDate'>>): Promise<void>
  /** Adds labels to the gateway (an import's system labels: docs/operations.md#csv-operations). */
  addLabels (uid: string, labels: readonly string[]): Promise<void>
  delete (uid: string): Promise<void>
  /** Marks the gateways of the company's systems as moving to `destination` (gateway.being.transferred). */
  markTransfer (companyUid: string, systemUids: string[], destination: string): Promise<void>
  /** Clears those marks of the systems' gateways that point to `destination`. */
  unmarkTransfer (companyUid: string, systemUids: string[], destination: string): Promise<void>
}
