import type { Communication, LifeCycleState, SystemState } from '../../domain/system.js'
import type { GatewayInput, SubscriptionInput } from './compose.js'

/** The System fragment a create or edit request carries (docs/api.md#systems). */
export interface SystemInput {
  name?: string | null
  type?: string | null
  labels?: string[] | null
  metadata?: Record<string, string> | null
  communication?: Communication | null
  lifeCycleState?: LifeCycleState
  state?: SystemState
  gateway?: GatewayInput | null
  subscription?: SubscriptionInput | null
  applications?: Array<{ uid?: string | undefined }> | null
}
