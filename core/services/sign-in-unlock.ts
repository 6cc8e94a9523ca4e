import type { SignInUnlocksRepository } from '../ports/sign-in-unlocks.js'
import type { UsersRepository } from '../ports/users.js'
import { accountHash } from './login-throttle.js'

/**
 * `fleet admin unlock <email>`: clears the user's sign-in counters (login-throttle.ts) in every process, from all
 * addresses, for an owner kept out by guesses from elsewhere.
 * @returns false when no user has that e-mail
 */
export async function unlockSignIn (repos: { users: Pick<UsersRepository, 'findByEmail'>, signInUnlocks: Pick<SignInUnlocksRepository, 'unlock'> },
  email: string, now: number): Promise<boolean> {
  const user = await repos.users.findByEmail(email)
  if (user === undefined) return false
  await repos.signInUnlocks.unlock(accountHash(user.email), now)
  return true
}
