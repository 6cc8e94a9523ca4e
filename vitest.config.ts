import { defineConfig } from 'vitest/config'

// One run holds every suite (unit, contracts, integration, e2e). With TEST_DATABASE_URL / TEST_REDIS_URL set,
// the server-backed suites use PostgreSQL and Redis instead of the embedded parts (see .ci/run).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
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
    reporters: ['default']
  }
})
