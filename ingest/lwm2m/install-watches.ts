// The observations that move installs on (docs/protocols/lwm2m.md#installs): Object 5's State, or the Object 9
// instance taking the package, observed for the task at the registration of the moment. Each notification only says
// that something changed (the step reads what). An observation goes with its registration (live.ts drops them when
// the device registers again, de-registers or expires) or with its task.
import { CoapError, coapRequest, type Observation } from '../../protocols/coap/index.js'
import { formatPath, type LwM2mPath } from '../../protocols/lwm2m/index.js'
import type { Logger } from '../../core/logger.js'
import type { LiveRegistration } from './live.js'
import { devicePath } from './reporting.js'

export function createInstallWatches ({ timeoutMs, log }: { timeoutMs: number, log: Pick<Logger, 'debug'> }) {
  // By registration, then task: a new registration (the device restarted) holds none until the task watches again.
  const held = new WeakMap<LiveRegistration, Map<string, Observation>>()

  function forget (r: LiveRegistration, taskUid: string): Observation | undefined {
    const o = held.get(r)?.get(taskUid)
    if (o === undefined) return undefined
    held.get(r)?.delete(taskUid)
    r.observations = r.observations.filter((x) => x !== o)
    return o
  }

  return {
    /**
     * Observes `path` for the task at `r` unless it already does; `changed` at each notification. Answers true when
     * the observation is new: what changed before the device took it is in no notification, so the caller reads
     * once more. Never throws for the device.
     */
    async watch (r: LiveRegistration, taskUid: string, path: LwM2mPath, changed: () => void): Promise<boolean> {
      let tasks = held.get(r)
      if (tasks === undefined) { tasks = new Map(); held.set(r, tasks) }
      if (tasks.has(taskUid) || r.ended === true) return false
      try {
        const o = await r.link.endpoint.observe(r.link.peer, coapRequest('GET', devicePath(r, path)), {
          onNotification: changed,
          onEnd: () => { forget(r, taskUid) } // ended by the device: the next step observes again
        }, { timeoutMs })
        if (!o.active) return false
        tasks.set(taskUid, o)
        r.observations.push(o)
        return true
      } catch (err) {
        if (!(err instanceof CoapError)) throw err
        // Without it the task moves on at the device's next Update or Register.
        log.debug({ code: err.code, systemUid: r.session.systemUid, path: formatPath(path) }, 'LwM2M install not observed')
        return false
      }
    },
    /** The task ended: its observation at `r` too (the device's next notification of it is answered with a RST). */
    end (r: LiveRegistration, taskUid: string): void {
      forget(r, taskUid)?.cancel('forget').catch(() => {})
    }
  }
}

export type InstallWatches = ReturnType<typeof createInstallWatches>
