// When a change of a system's logins fails to reach the broker (ingest/broker-sync/dynsec-sync.ts): a broker that does
// not answer makes the next changes join the retries without waiting for it, while a command the broker refuses
// (a conflict aside, which is planned again) is retried alone and holds no other change back.
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { BrokerUnavailableError, type DynsecClient, type DynsecCommand, type DynsecResponse } from '../../../ingest/broker-sync/dynsec-client.js'
import { createDynsecSync } from '../../../ingest/broker-sync/dynsec-sync.js'
import { eventually } from '../../helpers/eventually.js'
import type { BrokerLoginsRepository } from '../../../core/ports/broker.js'

const logins: BrokerLoginsRepository = {
  ofSystems: async (uids) => uids.map((systemUid) => ({ systemUid, identifier: `SN-${systemUid}`, password: 'pw' })),
  page: async () => ({ logins: [], last: undefined })
}

/** A broker that holds nothing and answers each create as `answer` says; records the commands it was sent. */
function broker (answer: (c: DynsecCommand) => DynsecResponse | 'away'): DynsecClient & { sent: DynsecCommand[] } {
  const sent: DynsecCommand[] = []
  return {
    sent,
    async run (commands) {
      sent.push(...commands)
      return commands.map((c) => {
        if (c.command.startsWith('get')) return { command: c.command, error: 'Not found' }
        const a = answer(c)
        if (a === 'away') throw new BrokerUnavailableError('not connected')
        return a
      })
    },
    close: async () => {}
  }
}

const sync = (dynsec: DynsecClient): ReturnType<typeof createDynsecSync> =>
  createDynsecSync({ dynsec, logins, reserved: new Set(), log: pino({ level: 'silent' }), retryFirstMs: 60_000 })

const creates = (sent: DynsecCommand[], uid: string): number => sent.filter((c) => c.command === 'createClient' && c.username === `SN-${uid}`).length

describe('a change the broker did not take', () => {
  it('refused: the next change is still sent at once', async () => {
    const b = broker((c) => ({ command: c.command, ...(c.command === 'createRole' && String(c.rolename).endsWith('-a') ? { error: 'Invalid ACL' } : {}) }))
    const s = sync(b)
    await s.changed(['a'])
    await s.changed(['b'])
    expect(creates(b.sent, 'b')).toBe(1)
    await s.close()
  })

  it('broker away: the next change joins the retries instead of waiting for it', async () => {
    let away = true
    const b = broker((c) => away ? 'away' : { command: c.command })
    const s = sync(b)
    await s.changed(['a'])
    away = false
    await s.changed(['b'])
    expect(creates(b.sent, 'b')).toBe(0)
    await s.close()
  })

  it('broker back: the changes waiting for it go at once, not at the end of the backoff', async () => {
    let away = true
    const ready: Array<() => void> = []
    const b = { ...broker((c) => away ? 'away' : { command: c.command }), onReady: (l: () => void) => { ready.push(l) } }
    const s = sync(b)
    await s.changed(['a'])
    await s.changed(['b'])
    expect(creates(b.sent, 'b')).toBe(0)
    away = false
    for (const l of ready) l()
    await eventually(() => creates(b.sent, 'a') === 2 && creates(b.sent, 'b') === 1, { timeoutMs: 5000, what: 'both sent again' })
    await s.close()
  })

  it('a create that meets one made meanwhile is planned again and sent again', async () => {
    let met = 0
    const b = broker((c) => c.command === 'createClient' && met++ === 0 ? { command: c.command, error: 'Client already exists' } : { command: c.command })
    const s = sync(b)
    await expect(s.reconcile(['a'])).resolves.toMatchObject({ clients: { created: 1 } })
    expect(creates(b.sent, 'a')).toBe(2)
    await s.close()
  })
})
