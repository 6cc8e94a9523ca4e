import type { Config } from '../config.js'
import type { SeedService } from './seed.service.js'
import { ALL_RIGHTS } from '../domain/rights.js'
import { randomSecret } from '../security/secrets.js'
import { genericApplicationsSeed, starterTemplatesSeed } from './seed/catalogue.seed.js'
import { CONSOLE_CLIENT_ID } from '../domain/console-client.js'

export interface BootstrapResult {
  created: boolean
  companyName: string
  adminEmail: string
  clientId: string
  /** Set only when generated (none was configured): printed once, never stored in clear. */
  generatedPassword?: string
  generatedSecret?: string
}

export const ADMINISTRATOR_PROFILE = 'Administrator'

/**
 * First start on an empty store: one company, its administrator and one API client, from configuration
 * (docs/api.md#get-a-token). Never twice: nothing happens once any company exists.
 */
export interface BootstrapDeps {
  config: Pick<Config, 'FLEET_COMPANY_NAME' | 'FLEET_ADMIN_EMAIL' | 'FLEET_ADMIN_PASSWORD' | 'FLEET_CLIENT_ID' | 'FLEET_CLIENT_SECRET'>
  seed: SeedService
  /** Whether the store holds no company yet. */
  isEmpty: () => Promise<boolean>
  /** Whether the API client exists. */
  hasClient: (clientId: string) => Promise<boolean>
}

export async function bootstrap ({ config, seed, isEmpty, hasClient }: BootstrapDeps): Promise<BootstrapResult> {
  const result: BootstrapResult = {
    created: false, companyName: config.FLEET_COMPANY_NAME, adminEmail: config.FLEET_ADMIN_EMAIL, clientId: config.FLEET_CLIENT_ID
  }
  // The public catalogue: the generic firmware applications, at every start so that an older store gets them.
  await seed.seed({ applications: genericApplicationsSeed() })
  // The web console's public client, in new and older stores alike; its redirect URI is not stored but
  // computed per request (core/domain/console-client.ts). Left as it is once it exists.
  if (!(await hasClient(CONSOLE_CLIENT_ID))) await seed.seed({ clients: [{ clientId: CONSOLE_CLIENT_ID, name: 'Fleet web console' }] })
  if (!(await isEmpty())) return result
  const password = config.FLEET_ADMIN_PASSWORD ?? randomSecret(12)
  const secret = config.FLEET_CLIENT_SECRET ?? randomSecret(24)
  await seed.seed({
    companies: [{ name: config.FLEET_COMPANY_NAME }],
    profiles: [{ company: config.FLEET_COMPANY_NAME, name: ADMINISTRATOR_PROFILE, rights: [...ALL_RIGHTS] }],
    users: [{
      email: config.FLEET_ADMIN_EMAIL,
      name: 'Administrator',
      password,
      companies: [{ company: config.FLEET_COMPANY_NAME, profile: ADMINISTRATOR_PROFILE, administrator: true }]
    }],
    clients: [{ clientId: config.FLEET_CLIENT_ID, clientSecret: secret, name: 'Fleet API client', user: config.FLEET_ADMIN_EMAIL }],
    templates: starterTemplatesSeed(config.FLEET_COMPANY_NAME)
  })
  return {
    ...result,
    created: true,
    ...(config.FLEET_ADMIN_PASSWORD === undefined ? { generatedPassword: password } : {}),
    ...(config.FLEET_CLIENT_SECRET === undefined ? { generatedSecret: secret } : {})
  }
}
