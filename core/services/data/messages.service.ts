// docs/devices.md: the list `{next, messages}` of one system, most recent first, and the detail with its
// data (§Device message). docs/api.md#using-the-api: `next` is the URL of the following page.
import { FleetError } from '../../errors.js'
import type { Clock } from '../../ports/store.js'
import type { Repositories } from '../../ports/repositories.js'
import type { MessageCursor, MessageRecord } from '../../ports/data-queries.js'
import type { CompanyAccess } from '../access.js'
import type { LastPoints } from './points.service.js'
import { range, size, threeMonthsBefore } from './params.js'
import { checkOwnSystems } from './own-systems.js'

export interface MessagesQuery {
  from?: number | undefined
  to?: number | undefined
  /** Deprecated aliases of from and to (docs/api.md#limits); from and to win when both are given. */
  fromDate?: number | undefined
  toDate?: number | undefined
  size?: number | undefined
  cursor?: string | undefined
}

/** What the following page asks: the same range and size, continuing after the cursor. */
export interface NextPage { from: number, to: number, size: number, cursor: string }

export interface MessagesPage { next: NextPage | null, messages: MessageRecord[] }

export type MessageDetail = MessageRecord & { data: LastPoints }

/** The cursor is opaque to clients: the (timestamp, uid) of the last message of the page, base64url. */
export function encodeCursor (c: MessageCursor): string {
  return Buffer.from(`${c.ts}:${c.uid}`).toString('base64url')
}

/** @throws FleetError request.invalid for a cursor this service did not write */
export function decodeCursor (v: string): MessageCursor {
  const text = Buffer.from(v, 'base64url').toString()
  const at = text.indexOf(':')
  const ts = Number(text.slice(0, at))
  const uid = text.slice(at + 1)
  if (at <= 0 || !Number.isSafeInteger(ts) || uid === '') throw new FleetError('request.invalid', ['cursor', v])
  return { ts, uid }
}

export function createMessagesService ({ repos, clock }: { repos: Pick<Repositories, 'dataQueries'>, clock: Clock }) {
  const ownSystem = async (access: CompanyAccess, uid: string): Promise<void> => { await checkOwnSystems(repos.dataQueries, access, [uid]) }

  return {
    /** @throws FleetError system.unknown, system.invalid.timerange (from greater than to) */
    async list (access: CompanyAccess, systemUid: string, q: MessagesQuery): Promise<MessagesPage> {
      await ownSystem(access, systemUid)
      const now = clock.now()
      const r = range({ from: q.from ?? q.fromDate, to: q.to ?? q.toDate }, now, 'system.invalid.timerange', threeMonthsBefore(now))
      const n = size(q.size)
      const after = q.cursor === undefined || q.cursor === '' ? null : decodeCursor(q.cursor)
      if (n === 0) return { next: null, messages: [] }
      // One more than asked tells whether a following page exists without a count.
      const rows = await repos.dataQueries.messages(systemUid, r, after, n + 1)
      const messages = rows.slice(0, n)
      const last = messages[messages.length - 1]
      const next = rows.length > n && last !== undefined
        ? { from: r.from, to: r.to, size: n, cursor: encodeCursor({ ts: last.timestamp, uid: last.uid }) }
        : null
      return { next, messages }
    },

    /**
     * @throws FleetError system.unknown, also for a message the system does not have: docs/api.md's error table
     * gives "messages detail" that one code (its parameters say which message was not found).
     */
    async detail (access: CompanyAccess, systemUid: string, messageUid: string): Promise<MessageDetail> {
      await ownSystem(access, systemUid)
      const message = await repos.dataQueries.message(systemUid, messageUid)
      if (message === undefined) throw new FleetError('system.unknown', [systemUid, `no message ${messageUid} of this system`])
      const data: LastPoints = {}
      for (const p of await repos.dataQueries.messagePoints(systemUid, messageUid)) {
        (data[p.dataId] ??= []).push({ value: p.value, timestamp: p.ts })
      }
      return { ...message, data }
    }
  }
}

export type MessagesService = ReturnType<typeof createMessagesService>
