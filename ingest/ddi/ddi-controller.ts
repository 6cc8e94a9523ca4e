// What a DDI controller (a Linux gateway's SWUpdate or RAUC hawkBit client) is answered (docs/protocols/ddi.md). Its
// work is its system's software device tasks over the DDI protocol: a poll takes them like a REST device's
// GET /device/tasks (the poll is device traffic: lastCommDate and commStatus follow), each install is offered as an
// action with an integer id, and the controller's feedback ends its task through the ack path every transport uses.
import type { AnswerStatus, DeviceTask } from '../../core/domain/device-task.js'
import type { SoftwareBody } from '../../core/domain/software-task.js'
import type { DeviceSession } from '../../core/services/ingest/devices.service.js'
import type { IngestService } from '../../core/services/ingest/ingest.service.js'
import type { DdiAction, DdiRepository } from './ddi.port.js'
import type { DdiArtifact, Feedback } from './ddi-json.js'

export interface DdiControllerDeps {
  store: DdiRepository
  ingest: Pick<IngestService, 'takeTasks' | 'acceptAcks'>
  sha1Of: (sha256: string) => Promise<string | undefined>
  now: () => number
}

/** The action a poll points to, or none. */
export type Offer = { rel: 'deploymentBase' | 'cancelAction', id: number } | undefined

/** A deployment to describe: its application and its artifacts. */
export interface Deployment { id: number, name: string, version: string, artifacts: Array<Omit<DdiArtifact, 'href'> & { url: string }> }

type Ack = { uid: string, status: AnswerStatus, message: string | null }

const isInstall = (t: DeviceTask): t is DeviceTask & SoftwareBody => 'software' in t && t.software.action === 'install'

/** Why a task cannot go over DDI: hawkBit deploys software; it has no reads, writes, commands or removals. */
function unsupported (t: DeviceTask): string {
  return 'software' in t
    ? `hawkBit DDI has no ${t.software.action} action: only installs are deployed`
    : 'hawkBit DDI carries software installs only'
}

const basename = (file: string): string => file.slice(file.lastIndexOf('/') + 1)

const open = (a: DdiAction): boolean => a.state === 'PENDING' || a.state === 'SENT'

const byTheDevice = (what: string, f: Feedback): string => `${what} by the device${f.details === null ? '' : `: ${f.details}`}`

/** What a deployment's feedback makes of its task: closed ends it (ERROR when the result is failure), canceled
 *  ends it CANCELLED, rejected ERROR, other executions keep it going (undefined). */
export function ackOf (uid: string, f: Feedback): Ack | undefined {
  if (f.execution === 'closed') return f.finished === 'failure' ? { uid, status: 'ERROR', message: f.details ?? 'failure' } : { uid, status: 'OK', message: f.details }
  if (f.execution === 'canceled') return { uid, status: 'CANCELLED', message: byTheDevice('canceled', f) }
  if (f.execution === 'rejected') return { uid, status: 'ERROR', message: byTheDevice('rejected', f) }
  return undefined
}

/** What a cancel's feedback makes of the task being cancelled: closed (not failure) or canceled confirms it
 *  (CANCELLED); a refusal (rejected, closed with failure) or a progress report leaves the install going (undefined). */
export function cancelAckOf (uid: string, f: Feedback): Ack | undefined {
  const confirmed = (f.execution === 'closed' && f.finished !== 'failure') || f.execution === 'canceled'
  return confirmed ? { uid, status: 'CANCELLED', message: byTheDevice('canceled', f) } : undefined
}

export function createDdiController ({ store, ingest, sha1Of, now }: DdiControllerDeps) {
  const answer = async (session: DeviceSession, acks: Ack[]): Promise<void> => {
    if (acks.length > 0) await ingest.acceptAcks(session.systemUid, 'DDI', acks)
  }

  /** The open action of this system, undefined for an unknown id, another system's or one already ended. */
  async function openAction (session: DeviceSession, id: number): Promise<DdiAction | undefined> {
    const a = await store.action(session.systemUid, id)
    return a !== undefined && open(a) ? a : undefined
  }

  return {
    /**
     * The poll: the tasks waiting and those offered before and not ended (an action is offered until the controller
     * closes it). A task DDI cannot carry is answered ERROR at once. A cancelled action comes before the others.
     */
    async poll (session: DeviceSession): Promise<Offer> {
      const tasks = await ingest.takeTasks(session.systemUid, 'DDI', { again: true })
      await answer(session, tasks.filter((t) => !isInstall(t)).map((t) => ({ uid: t.uid, status: 'ERROR', message: unsupported(t) })))
      const offers = await store.offers(session.systemUid, tasks.filter(isInstall).map((t) => t.uid), now())
      const first = offers.find((o) => o.cancelling) ?? offers[0]
      return first === undefined ? undefined : { rel: first.cancelling ? 'cancelAction' : 'deploymentBase', id: first.id }
    },

    /**
     * deploymentBase/<id>: undefined (404) for an action that is not the system's or has ended. A binary whose bytes
     * the service no longer holds cannot be installed: the task ends ERROR, rather than a hash of other bytes sent.
     */
    async deployment (session: DeviceSession, id: number): Promise<Deployment | undefined> {
      const a = await openAction(session, id)
      if (a === undefined || !isInstall(a.task)) return undefined
      const { application, binaries } = a.task.software
      const artifacts: Deployment['artifacts'] = []
      for (const b of binaries) {
        const sha1 = await sha1Of(b.sha256)
        if (sha1 === undefined) {
          await answer(session, [{ uid: a.taskUid, status: 'ERROR', message: `binary ${b.file} is no longer stored` }])
          return undefined
        }
        artifacts.push({ filename: basename(b.file), size: b.size, sha1, md5: b.md5, sha256: b.sha256, url: b.url })
      }
      return { id, name: application.name, version: application.revision, artifacts }
    },

    /** Whether the action is the system's and its operation is cancelling it (cancelAction/<id>). */
    async cancelling (session: DeviceSession, id: number): Promise<boolean> {
      return (await openAction(session, id))?.cancelling === true
    },

    /**
     * A deployment's feedback (docs/protocols/ddi.md#feedback-and-task-states): closed ends the task, OK unless the
     * result is failure; canceled ends it CANCELLED, rejected ERROR; any other execution keeps it open and offered.
     * False for an action that is not the system's. A feedback on an action already ended changes nothing.
     */
    async feedback (session: DeviceSession, id: number, f: Feedback): Promise<boolean> {
      const a = await store.action(session.systemUid, id)
      if (a === undefined) return false
      await store.feedback(session.systemUid, id, { execution: f.execution, details: f.details }, now())
      const ack = open(a) ? ackOf(a.taskUid, f) : undefined
      if (ack !== undefined) await answer(session, [ack])
      return true
    },

    /**
     * A cancel's feedback: closed (not failure) or canceled confirms it, and the task being cancelled ends CANCELLED
     * (a device's answer ends a task being cancelled: docs/operations.md); a refusal (closed with failure, rejected)
     * leaves the deployment going on. False for an action that is not the system's.
     */
    async cancelFeedback (session: DeviceSession, id: number, f: Feedback): Promise<boolean> {
      const a = await store.action(session.systemUid, id)
      if (a === undefined) return false
      await store.feedback(session.systemUid, id, { execution: `cancel.${f.execution}`, details: f.details }, now())
      const ack = open(a) && a.cancelling ? cancelAckOf(a.taskUid, f) : undefined
      if (ack !== undefined) await answer(session, [ack])
      return true
    }
  }
}

export type DdiController = ReturnType<typeof createDdiController>
