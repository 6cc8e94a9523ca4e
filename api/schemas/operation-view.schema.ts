// The operation and task JSON of docs/operations.md#bulk-operations (built by core/domain/operation.ts operationView
// and taskView). Fastify serializes through these schemas: every field the service answers is listed.
import { Type } from 'typebox'
import { OPERATION_STATES, OPERATION_TYPES, TASK_STATES } from '../../core/domain/operation.js'

const Null = Type.Null()
const time = (description: string) => Type.Union([Type.Integer(), Null], { description: `${description} (epoch ms)` })

export const OperationRef = Type.Object({
  operation: Type.String({ description: 'uid of the created operation; follow it with GET /api/v1/operations/{uid}' })
}, { description: 'The operation created', examples: [{ operation: '7a1d4e4f6a8b0c2d4e6f8a0b1c3f9c2b' }] })

const Counter = Type.Object({
  state: Type.String({ enum: [...TASK_STATES], description: 'Task state' }),
  count: Type.Integer({ description: 'Tasks in this state' })
})

// Typed as the service's views (core/domain/operation.ts answers records): the schema describes, the domain builds.
type View = Record<string, unknown>

export const OperationView = Type.Unsafe<View>(Type.Object({
  uid: Type.String({ description: 'uid of the operation' }),
  entity: Type.String({ enum: ['SYSTEM', 'APPLICATION'], description: 'What the operation works on: systems, or the applications (release, publish: docs/packages.md)' }),
  operationType: Type.String({ enum: [...OPERATION_TYPES], description: 'Kind of operation' }),
  state: Type.String({ enum: [...OPERATION_STATES], description: 'SCHEDULED (waiting for scheduledTime or dependsOn), IN_PROGRESS or FINISHED' }),
  createdAt: Type.Integer({ description: 'Creation date (epoch ms)' }),
  startDate: time('Start'),
  scheduledTime: time('Requested start'),
  timeoutDate: Type.Integer({ description: 'Tasks not finished by then fail with operation.timeout (epoch ms)' }),
  endDate: time('End'),
  cancelDate: time('Cancellation'),
  total: Type.Integer({ description: 'Number of tasks (one per system)' }),
  target: Type.Union([Type.String(), Null], { description: 'The system of a one-system operation (export), else null' }),
  counters: Type.Array(Counter, { description: 'Tasks per state; all six states, always' }),
  user: Type.Union([Type.Object({
    uid: Type.String({ description: 'uid of the user' }),
    email: Type.Union([Type.String(), Null], { description: 'E-mail' })
  }), Null], { description: 'Who created the operation' }),
  notify: Type.Boolean({ description: 'Whether an e-mail is sent to the creator when it finishes' }),
  callback: Type.Union([Type.String(), Null], { description: 'URL called on every change of state (its password masked)' }),
  callbackDelivery: Type.Union([Type.Object({
    attempts: Type.Integer({ description: 'Callback tries made, all state changes together' }),
    lastStatus: Type.Union([Type.Integer(), Null], { description: 'HTTP status of the last try; null when no answer came' }),
    lastError: Type.Union([Type.String(), Null], { description: 'Why the last try failed (http 500, ECONNREFUSED, timeout, ...); null when delivered' }),
    lastAttemptAt: time('Last try'),
    delivered: Type.Boolean({ description: 'Whether the last try was answered 2xx' })
  }), Null], { description: 'How the callbacks went; null without a callback' }),
  parameters: Type.Object({}, { additionalProperties: true, description: 'The parameters of the request, per operation type' }),
  dependsOn: Type.Union([Type.Object({
    operation: Type.String({ description: 'uid of the parent operation' }),
    states: Type.Array(Type.String({ enum: ['SUCCESS', 'FAILURE', 'CANCELLED'] }), { description: 'Which tasks of the parent give the systems' })
  }), Null], { description: 'The operation this one waits for, or null' }),
  abortedBy: Type.Union([Type.Object({
    reason: Type.String({ enum: ['failure.threshold', 'wave.failed'], description: 'What stopped it: failure.threshold, the share of FAILURE among the ended tasks reached the abort\'s failurePercent; wave.failed, a wave could no longer reach waveSuccessPercent' }),
    failurePercent: Type.Optional(Type.Number({ description: 'failure.threshold: the threshold of the request' })),
    minTasks: Type.Optional(Type.Integer({ description: 'failure.threshold: ended tasks needed before the share was judged (rollout.abort.minFinished, or the older abort.minTasks)' })),
    ended: Type.Optional(Type.Integer({ description: 'failure.threshold: tasks ended (SUCCESS or FAILURE) when it stopped' })),
    wave: Type.Optional(Type.Integer({ description: 'wave.failed: the wave (from 1) that could not pass' })),
    waveSuccessPercent: Type.Optional(Type.Number({ description: 'wave.failed: the share of the request' })),
    size: Type.Optional(Type.Integer({ description: 'wave.failed: tasks of the waves up to that one' })),
    needed: Type.Optional(Type.Integer({ description: 'wave.failed: successes needed among them' })),
    succeeded: Type.Optional(Type.Integer({ description: 'wave.failed: tasks in SUCCESS when it stopped' })),
    failed: Type.Integer({ description: 'Tasks in FAILURE when it stopped' })
  }), Null], { description: 'Not in AirVantage: set when a device operation\'s rollout stopped by itself, its PENDING tasks CANCELLED with operation.aborted.threshold; null otherwise' }),
  abortReason: Type.Union([Type.String({ enum: ['failure.threshold', 'wave.failed'] }), Null], { description: 'Not in AirVantage: abortedBy.reason, or null' }),
  rollout: Type.Union([Type.Object({
    maxPerMinute: Type.Union([Type.Integer(), Null], { description: 'Tasks released in any 60 s, at most' }),
    waves: Type.Union([Type.Array(Type.Number()), Null], { description: 'Cumulative percents of the tasks per wave, ending with 100 (added when the request\'s list ended lower)' }),
    waveSuccessPercent: Type.Union([Type.Number(), Null], { description: 'Share of the tasks of the waves so far that must succeed before the next wave starts' }),
    abort: Type.Union([Type.Object({
      failurePercent: Type.Number({ description: 'Share of finished tasks in FAILURE that stops the rollout' }),
      minFinished: Type.Integer({ description: 'Finished tasks needed before the share is judged' })
    }), Null], { description: 'The failure threshold (rollout.abort, or the older top-level abort)' }),
    maintenanceWindow: Type.Union([Type.Object({
      start: Type.String({ description: 'HH:MM' }),
      end: Type.String({ description: 'HH:MM (before start: across midnight)' }),
      timeZone: Type.String({ description: 'IANA time zone name' })
    }), Null], { description: 'Tasks leave only inside it' }),
    wave: Type.Union([Type.Integer(), Null], { description: 'The wave (from 1) whose tasks may leave now; null without waves' }),
    sent: Type.Integer({ description: 'Tasks released so far (started)' }),
    nextAt: time('When the next task may leave (a spent maxPerMinute, a closed window); null when nothing waits for a time'),
    paused: Type.Boolean({ description: 'Whether a user paused it (POST /api/v1/operations/{uid}/pause)' })
  }), Null], { description: 'Not in AirVantage: the safe rollout of a device operation and its progress; null for an operation with none that is not paused' })
}, {
  description: 'A bulk operation',
  examples: [{
    uid: '7a1d4e4f6a8b0c2d4e6f8a0b1c3f9c2b',
    entity: 'SYSTEM',
    operationType: 'SYSTEM_LABEL',
    state: 'FINISHED',
    createdAt: 1767225600000,
    startDate: 1767225600050,
    scheduledTime: null,
    timeoutDate: 1767830400000,
    endDate: 1767225600300,
    cancelDate: null,
    total: 2,
    target: null,
    counters: TASK_STATES.map((state) => ({ state, count: state === 'SUCCESS' ? 2 : 0 })),
    user: { uid: '1d4e4f6a8b0c2d4e6f8a0b1c3f9c2b7a', email: 'admin@example.com' },
    notify: false,
    callback: null,
    callbackDelivery: null,
    parameters: { labels: { add: ['north'], remove: [] } },
    dependsOn: null,
    abortedBy: null,
    abortReason: null,
    rollout: null
  }]
}))

export const TaskView = Type.Unsafe<View>(Type.Object({
  uid: Type.String({ description: 'uid of the task' }),
  operation: Type.String({ description: 'uid of its operation' }),
  system: Type.Union([Type.Object({
    uid: Type.String({ description: 'uid of the system' }),
    name: Type.Union([Type.String(), Null], { description: 'Name of the system' })
  }), Null], { description: 'The system; null for a CSV row that made none (yet, or because it failed)' }),
  state: Type.String({ enum: [...TASK_STATES], description: 'Task state' }),
  createdAt: Type.Integer({ description: 'Creation date (epoch ms)' }),
  startDate: time('Start'),
  endDate: time('End'),
  error: Type.Union([Type.Object({
    code: Type.String({ description: 'Error code' }),
    message: Type.String({ description: 'What happened' })
  }), Null], { description: 'Why the task failed, or null' }),
  line: Type.Optional(Type.Integer({ description: 'CSV line of the system (operations from a CSV file)' }))
}, { description: 'The task of one system in an operation' }))
