import type { UsersRepository } from '../ports/users.js'
import { hashPassword, randomSecret } from '../security/secrets.js'

/**
 * `fleet admin reset-password <email>`: the way back in for whoever holds the store (a lost or never seen generated
 * password). A new password is generated, stored as a hash, and answered once for the command to print.
 * @returns undefined when no user has that e-mail
 */
export async function resetPassword (users: Pick<UsersRepository, 'findByEmail' | 'update'>, email: string, hashCost?: number): Promise<string | undefined> {
  const user = await users.findByEmail(email)
  if (user === undefined) return undefined
  // The same strength as the first start's generated password (bootstrap.service.ts).
  const password = randomSecret(12)
  await users.update(user.uid, { passwordHash: await hashPassword(password, hashCost) })
  return password
}
