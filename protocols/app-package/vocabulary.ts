// The one place this codec reaches into the service: the application model's vocabulary. Unlike the other codecs of
// protocols/, whose words are a device protocol's, a package's model IS the application model (docs/packages.md#the-package):
// it produces core/domain's ReleasedModel, and its data tree and communication obey the rules PUT /applications/{uid}/data
// and /communication apply (docs/api.md#applications-and-templates). Forking those types here would let the two drift, so
// the pure domain modules (types, constants and rule functions, no I/O) and the data tree's bounds of its schema are
// imported, from this file only (eslint.config.js allows it here and nowhere else in protocols/).
export type { CommunicationEntry, DataNode, ValueType } from '../../core/domain/application-model.js'
export { COMM_ID_TYPES, VALUE_TYPES } from '../../core/domain/application-model.js'
export { communicationProblem, dataTreeProblem } from '../../core/domain/application-model-rules.js'
export type { DeclaredBinary, ReleasedModel, ReleaseError, ReleaseErrorCode } from '../../core/domain/application-package.js'
export { RELEASE_ERRORS } from '../../core/domain/application-package.js'
export { DEVICE_PROTOCOLS } from '../../core/domain/device-message.js'
export { MAX_DATA_DEPTH, MAX_SIBLINGS } from '../../core/schemas/application-model.schema.js'
export type { DeviceProtocol } from '../../core/domain/device-message.js'
