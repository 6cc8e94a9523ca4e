import type { Config } from './config.js'
import type { RateCounter } from './ports/store.js'
import type { Services } from './services/index.js'
import type { Logger } from './logger.js'
import type { MetricsRegistry } from './metrics.js'
import type { ArtifactStore } from './ports/artifacts.js'

/** What api/ and ingest/ receive: built by bin/context.ts, the composition root. */
export interface AppContext {
  config: Readonly<Config>
  log: Logger
  services: Services
  rateCounter: RateCounter
  /** Where the services report their metrics; GET /metrics reads it. */
  metrics: MetricsRegistry
  /** The bytes of released binaries (ARTIFACT_STORE: files under DATA_DIR/artifacts, or the database). */
  artifacts: ArtifactStore
  close (): Promise<void>
}
