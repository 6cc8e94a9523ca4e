// The subscriptions' port (SIM cards).
import type { Subscription } from '../domain/system.js'
import type { SubscriptionFilter, SubscriptionSort } from '../domain/parts.js'
import type { Found, Page, Sort } from '../paging.js'

export interface SubscriptionsRepository {
  findByUid (companyUid: string, uid: string): Promise<Subscription | undefined>
  findByIdentifier (companyUid: string, identifier: string): Promise<Subscription | undefined>
  /** GET /api/v1/subscriptions: the company's subscriptions matching every given filter, sorted and paged. */
  find (companyUid: string, filter: SubscriptionFilter, sort: Array<Sort<SubscriptionSort>>, page: Page): Promise<Found<Subscription>>
  insert (s: Subscription): Promise<void>
  update (uid: string, patch: Partial<Omit<Subscription, 'uid' | 'companyUid' | 'creationDate'>>): Promise<void>
  /** Adds labels to the subscription (an import's system labels: docs/operations.md#csv-operations). */
  addLabels (uid: string, labels: readonly string[]): Promise<void>
  delete (uid: string): Promise<void>
}
