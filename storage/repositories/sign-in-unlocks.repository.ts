import type { Queryable } from '../../core/ports/store.js'
import type { SignInUnlocksRepository } from '../../core/ports/sign-in-unlocks.js'

export function createSignInUnlocksRepository (q: Queryable): SignInUnlocksRepository {
  return {
    async unlockedAt (accountHash) {
      const { rows } = await q.query<{ unlocked_at: string }>('SELECT unlocked_at FROM sign_in_unlocks WHERE account_hash = $1', [accountHash])
      return rows[0] === undefined ? undefined : Number(rows[0].unlocked_at)
    },
    async unlock (accountHash, at) {
      await q.query(`INSERT INTO sign_in_unlocks (account_hash, unlocked_at) VALUES ($1, $2)
        ON CONFLICT (account_hash) DO UPDATE SET unlocked_at = GREATEST(sign_in_unlocks.unlocked_at + 1, EXCLUDED.unlocked_at)`, [accountHash, at])
    }
  }
}
