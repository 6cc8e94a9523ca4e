import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'
import { TierSequencer } from './test/helpers/tier-sequencer.js'

// The test tiers, one folder and one vitest project each (docs/decisions/0015-test-tiers.md). `npm test` runs every
// project in one `vitest run`, so the tiers share one pool of workers; `npm run test:<tier>` runs one.
//   unit           test/unit   no store, no socket: the rules and the codecs
//   store          test/store  the store's conformance (repositories, queue, counters, event bus) on PGlite
//   store-servers  test/store  the same files on PostgreSQL and Redis: present when TEST_DATABASE_URL /
//                              TEST_REDIS_URL are set, and always under CI=true (its files then fail without them)
//   int            test/int    features through the API and the device ports, always on the embedded store
//   slow           test/slow   processes killed or crashed, the CLI, roles, properties, the browser: once, on the
//                              servers when their URLs are set
// A worker is reused only by files of its own project (vitest's pool compares projects), so each project's
// environment below is the one its files' modules read (test/helpers/env.ts reads the URLs once, at import).

const ci = process.env.CI === 'true'
const set = (v: string | undefined): boolean => v !== undefined && v !== ''
const servers = set(process.env.TEST_DATABASE_URL) || set(process.env.TEST_REDIS_URL)

// The embedded store: the server URLs cleared ('' reads as unset in test/helpers/env.ts).
const embedded = { TEST_DATABASE_URL: '', TEST_REDIS_URL: '' }
// CI cleared as well where a tier's files would otherwise register their server runs: under CI=true a file of the
// store tier registers its PostgreSQL / Redis runs even without URLs (so that a CI run without servers fails instead
// of passing by leaving them out); in the embedded project those runs belong to store-servers, not here.
const embeddedOnly = { ...embedded, CI: '' }

// The migrated PGlite image (and, with TEST_DATABASE_URL, the template database) every store is cloned from.
const globalSetup = ['test/helpers/global-setup.ts']

// Slow files whose every test needs a server (two services sharing Redis; the local queue on PostgreSQL and BullMQ
// on Redis): without their URLs and outside CI they register nothing, and vitest fails a file that holds no test, so
// an embedded run leaves them out. Under CI=true they always run, and fail without the servers.
const serversOnly = ci
  ? []
  : [
      ...(set(process.env.TEST_DATABASE_URL) && set(process.env.TEST_REDIS_URL) ? [] : ['test/slow/cluster-stream.test.ts']),
      ...(servers ? [] : ['test/slow/queue-on-servers.test.ts'])
    ]

function tier (name: string, folder: string, env: Record<string, string> | undefined, setup = globalSetup, exclude: string[] = []): TestProjectInlineConfiguration {
  return { extends: true, test: { name, include: [`test/${folder}/**/*.test.ts`], exclude: [...configDefaults.exclude, ...exclude], env, globalSetup: setup } }
}

export default defineConfig({
  test: {
    projects: [
      tier('unit', 'unit', embeddedOnly, []),
      tier('store', 'store', embeddedOnly),
      ...(servers || ci ? [tier('store-servers', 'store', undefined)] : []),
      tier('int', 'int', embedded),
      tier('slow', 'slow', undefined, globalSetup, serversOnly)
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker runs its files one after another in one module graph instead of importing the service anew for each
    // (vitest's import time of the embedded run: 490 s before, 38 s after). Each file opens and closes its own stores,
    // servers and clients, and none mocks a module or changes the environment.
    isolate: false,
    // Vitest's default is one worker less than the cores: one on this 2-core machine. Most files wait on sockets,
    // timers and the store rather than compute, so three run well side by side.
    maxWorkers: 3,
    // The slow tier's files alternate with the others from the start (test/helpers/tier-sequencer.ts).
    sequence: { sequencer: TierSequencer },
    reporters: ['default']
  }
})
