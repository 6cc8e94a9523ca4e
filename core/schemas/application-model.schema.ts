// JSON schemas of the application model (docs/api.md#applications-and-templates): what PUT /applications/{uid}/data and
// /communication, POST /applications and the seed file accept. The structure is checked here; the rules a schema
// cannot say (sibling ids, what each element type may carry) are in core/domain/application-model-rules.ts.
import { Type, type TSchema } from 'typebox'
import { ACTION_TYPES, COMM_ID_TYPES, ELEMENT_TYPES, VALUE_TYPES } from '../domain/application-model.js'
import { DEVICE_PROTOCOLS } from '../domain/device-message.js'

/**
 * How deep a data tree may go. The schema is unrolled to this depth instead of being recursive, so that a hostile
 * body nested thousands of levels deep is refused at the bound rather than exhausting the validator's stack.
 */
export const MAX_DATA_DEPTH = 8
/** Elements of one level of a data tree, and entries of a communication list. */
export const MAX_SIBLINGS = 1000
export const MAX_COMMUNICATION_ENTRIES = 20

const nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]))

const ElementId = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[^.]+$',
  description: 'Id of the element within its parent; the data id is the dot-joined ids from the top node down, so an id holds no dot'
})

const ParameterSchema = Type.Object({
  id: ElementId,
  type: Type.Enum([...VALUE_TYPES], { description: 'Value type' })
}, { additionalProperties: false, description: 'A parameter of a command' })

function dataNodeAt (depth: number): TSchema {
  const children = depth < MAX_DATA_DEPTH
    ? Type.Array(dataNodeAt(depth + 1), { maxItems: MAX_SIBLINGS, description: 'Children of a node' })
    : Type.Array(Type.Unknown(), { maxItems: 0, description: `Children of a node; a tree holds at most ${MAX_DATA_DEPTH} levels` })
  return Type.Object({
    id: ElementId,
    label: nullable(Type.String({ maxLength: 255, description: 'Label shown to users' })),
    elementType: Type.Enum([...ELEMENT_TYPES], { description: 'node (groups children), variable (readable), setting (readable and writable), command (takes parameters) or action (actionType REBOOT, RESET or CONNECT)' }),
    encoding: nullable(Type.Enum([...DEVICE_PROTOCOLS], { description: 'Protocol that carries this element (else the application\'s communication decides)' })),
    type: nullable(Type.Enum([...VALUE_TYPES], { description: 'Value type of a variable or setting' })),
    data: nullable(children),
    parameters: nullable(Type.Array(ParameterSchema, { maxItems: 100, description: 'Parameters of a command' })),
    actionType: nullable(Type.Enum([...ACTION_TYPES], { description: 'What an action does: REBOOT, RESET or CONNECT' }))
  }, { additionalProperties: false })
}

/** One element of a data tree with its children. */
export const DataNodeSchema = dataNodeAt(1)

/** The body of PUT /applications/{uid}/data. */
export const DataTreeSchema = Type.Array(DataNodeSchema, {
  maxItems: MAX_SIBLINGS,
  description: 'Trees of nodes, variables, settings, commands and actions',
  examples: [[{ id: 'config', label: 'Configuration', elementType: 'node', data: [{ id: 'reportPeriodS', elementType: 'setting', type: 'int' }] },
    { id: 'system', elementType: 'node', data: [{ id: 'reboot', elementType: 'action', actionType: 'REBOOT' }] }]]
})

export const CommunicationEntrySchema = Type.Object({
  type: Type.Enum([...DEVICE_PROTOCOLS], { description: 'Protocol' }),
  commIdType: Type.Enum([...COMM_ID_TYPES], { description: 'System identifier the device logs in with' }),
  parameters: nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'Protocol parameters (MSCI access and poll period, M3DA encryption and authentication)' }))
}, { additionalProperties: false })

/** The body of PUT /applications/{uid}/communication. */
export const CommunicationSchema = Type.Array(CommunicationEntrySchema, {
  maxItems: MAX_COMMUNICATION_ENTRIES,
  description: 'Protocols the application speaks, each at most once',
  examples: [[{ type: 'MQTT', commIdType: 'SERIAL' }]]
})
