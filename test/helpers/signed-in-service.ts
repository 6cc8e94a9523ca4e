// A service process (cli-service.ts) whose first start creates an administrator and API client with secrets chosen
// here, and the credentials the simulator and the test sign in with.
import { randomBytes } from 'node:crypto'
import type { ApiCredentials } from '../../simulator/provision.js'
import { cliService, type CliService } from './cli-service.js'
import type { Store } from './cli-stores.js'

export async function signedInService (store: Pick<Store, 'env'>): Promise<{ service: CliService, credentials: ApiCredentials }> {
  const [password, secret] = [randomBytes(12).toString('hex'), randomBytes(12).toString('hex')]
  const service = await cliService(store, { FLEET_ADMIN_PASSWORD: password, FLEET_CLIENT_SECRET: secret })
  return { service, credentials: { url: `http://127.0.0.1:${service.httpPort}`, clientId: 'fleet-cli', clientSecret: secret, email: 'admin@fleet.local', password } }
}
