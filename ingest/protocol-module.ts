// The shape of a device protocol (docs/decisions/0013-protocol-modules.md): one folder under ingest/ that brings its
// transport, its service, its repository and its migrations (the .sql files of its `migrations/` folder, applied by
// storage/migrate.ts in one order with core's), registered by one line in the list of bin/transports.ts. Core's
// shared ports (Repositories, DevicesService, TransportDeps) name no protocol: what a protocol keeps is its own.
import type { Queryable } from '../core/ports/store.js'
import type { Repositories } from '../core/ports/repositories.js'
import type { DeviceTransport, TransportDeps, TransportFactory } from './transport.js'
import type { Capabilities } from './capabilities.js'
import type { ArtifactStore } from '../core/ports/artifacts.js'

/** What a protocol module is given, beside what every transport is given. */
export interface ProtocolDeps extends TransportDeps {
  /** The store's pool: the module makes its own repository of it (DeviceProtocolModule.createStore). */
  db: Queryable
  /** The shared repositories a protocol reads to know its devices (their systems, companies and applications). */
  repos: Pick<Repositories, 'systems' | 'companies' | 'applications'>
  /** What modules earlier in the list offer to later ones (capabilities.ts: the MQTT module's embedded broker). */
  capabilities: Capabilities
  /**
   * The released binaries' bytes, for a protocol that describes them beyond what their release recorded (hawkBit DDI
   * sends their SHA-1: ingest/ddi/artifact-sha1.ts); absent, such a protocol cannot describe them.
   */
  artifacts?: Pick<ArtifactStore, 'open'>
}

export interface DeviceProtocolModule<Store = unknown> {
  /** Its name (the transport it builds has the same one). */
  readonly name: string
  /** Its repository over the store (its own tables), absent when it keeps nothing of its own. */
  readonly createStore?: (db: Queryable) => Store
  /** Builds its service and transport (its periodic jobs are the transport's `jobs`). */
  readonly transport: (deps: ProtocolDeps) => Promise<DeviceTransport>
}

/** An entry of the list: a module, or a bare transport factory (a protocol with no state of its own: REST). */
export type ProtocolEntry = DeviceProtocolModule | TransportFactory

export function asModule (entry: ProtocolEntry): DeviceProtocolModule {
  return typeof entry === 'function' ? { name: entry.name, transport: entry } : entry
}
