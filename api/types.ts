import type { Actor } from '../core/domain/actor.js'
import type { CompanyAccess } from '../core/services/access.js'

/** How a route finds its context company (docs/api.md#using-the-api). */
export type ContextFrom = 'query' | 'path' | 'none'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The right of the endpoint's row in docs/api.md; null when none is needed. */
    right?: string | null
    /** 'query': the `company` parameter (default); 'path': the `uid` path parameter; 'none': no company. */
    context?: ContextFrom
    /** Open to anyone: no token asked (the OAuth endpoints, the docs). */
    public?: boolean
    /** false: never refused by load shedding (health, readiness, metrics: api/plugins/overload.ts). */
    shed?: boolean
    /**
     * true: the request takes its admission place only when the handler calls req.admit(), once it has read the
     * body (a package upload: api/plugins/overload.ts says why).
     */
    admitAfterBody?: boolean
  }
  interface FastifyRequest {
    actor: Actor
    access: CompanyAccess
    /**
     * Takes the request's admission place if it has none yet (a route with admitAfterBody), at once; throws
     * ClientGone when its client is gone (api/plugins/overload.ts).
     */
    admit: () => Promise<void>
  }
}
