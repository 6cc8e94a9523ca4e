// Which artifact store a process uses (ARTIFACT_STORE, docs/configuration.md): files under DATA_DIR/artifacts, or
// chunks in the store's database (docs/decisions/0025-artifact-store.md).
import { join } from 'node:path'
import type { Config } from '../../core/config.js'
import type { ArtifactStore } from '../../core/ports/artifacts.js'
import type { Db } from '../../core/ports/store.js'
import { createDbArtifacts } from './db-artifacts.js'
import { createFileArtifacts } from './file-artifacts.js'

export function createArtifactStore (config: Pick<Config, 'ARTIFACT_STORE' | 'DATA_DIR'>, db: Db): ArtifactStore {
  return config.ARTIFACT_STORE === 'database' ? createDbArtifacts(db) : createFileArtifacts(join(config.DATA_DIR, 'artifacts'))
}
