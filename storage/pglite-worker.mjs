// Entry of the PGlite thread (storage/pglite-db.ts): a worker starts without the loader of the thread that made it,
// so it registers tsx's itself before loading the TypeScript (as bin/fleet.mjs does for the service).
import { register } from 'tsx/esm/api'

register()
await import('./pglite-worker.ts')
