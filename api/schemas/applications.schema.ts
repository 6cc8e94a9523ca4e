// The application catalogue and its model (docs/api.md#applications-and-templates;
// docs/api.md#applications-and-templates).
import { Type } from 'typebox'
import { APPLICATION_CATEGORY_INPUTS } from '../../core/domain/system.js'
import { APPLICATION_STATES } from '../../core/domain/application-package.js'
import { CommunicationSchema, DataTreeSchema } from '../../core/schemas/application-model.schema.js'
import { APPLICATION_FIELDS } from '../../core/services/applications.service.js'
import { CompanyParam, listParam, PageQuery } from './common.schema.js'

const example = {
  uid: '9b0c2d4e6f8a0b1c3f9c2b7a1d4e4f6a',
  name: 'Tracker firmware',
  revision: '2.1',
  type: 'tracker-fw',
  category: 'FIRMWARE',
  communication: [{ type: 'MQTT', commIdType: 'SERIAL' }],
  data: [
    { id: 'machine', elementType: 'node', data: [{ id: 'temperature', elementType: 'variable', type: 'double' }] },
    { id: 'system', elementType: 'node', data: [{ id: 'reboot', elementType: 'action', actionType: 'REBOOT' }] }
  ]
}

const releasedExample = {
  state: 'PUBLISHED',
  released: 1767225600000,
  published: 1767229200000,
  owner: { uid: '5e1f0a2b3c4d5e6f7a8b9c0d1e2f3a4b', name: 'Ada Admin' },
  applicationManager: 'MQTT_SW',
  binaries: [{ file: 'bin/tracker-fw-2.1.bin', revision: '2.1', type: 'FULL', size: 1048576, sha256: 'a3f1c2d4e5b6978812ab34cd56ef7890a3f1c2d4e5b6978812ab34cd56ef7890', md5: '0f343b0931126a20f133d67c2b018a3b' }]
}

const BinaryView = Type.Object({
  file: Type.String({ description: 'Its entry in the package' }),
  revision: Type.Union([Type.String(), Type.Null()], { description: 'Its revision, as the model declares it' }),
  type: Type.Union([Type.String(), Type.Null()], { description: 'FULL (a whole image) or what the model declares' }),
  size: Type.Integer({ description: 'Bytes' }),
  sha256: Type.String({ description: 'SHA-256 of the bytes, lower-case hex' }),
  md5: Type.String({ description: 'MD5 of the bytes, lower-case hex (the Mihini agent checks it)' })
}, { description: 'A binary to install' })

// As answered: commIdType as stored (rows written before the model was checked may hold any text).
const CommunicationView = Type.Array(Type.Object({
  type: Type.String({ description: 'Protocol: MQTT, REST, M3DA, MSCI, SNMP or SPARKPLUG' }),
  commIdType: Type.String({ description: 'System identifier the device logs in with: SERIAL, IMEI...' }),
  parameters: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], { description: 'Protocol parameters' }))
}), { description: 'Protocols the application speaks' })

export const ApplicationView = Type.Object({
  uid: Type.Optional(Type.String({ description: 'uid of the application' })),
  name: Type.Optional(Type.String({ description: 'Name' })),
  revision: Type.Optional(Type.String({ description: 'Revision' })),
  type: Type.Optional(Type.String({ description: 'Type' })),
  category: Type.Optional(Type.String({ description: 'APPLICATION or FIRMWARE' })),
  communication: Type.Optional(CommunicationView),
  data: Type.Optional(DataTreeSchema),
  public: Type.Optional(Type.Boolean({ description: 'True for a public application, false for the company\'s own' })),
  state: Type.Optional(Type.String({ enum: [...APPLICATION_STATES], description: 'RELEASED (from a package), PUBLISHED (installable; an application made without a package is), or DEPRECATED' })),
  released: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'When it was released from a package (epoch ms); null for one made otherwise' })),
  published: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'When it was first published (epoch ms), or made when made without a package; null while RELEASED' })),
  owner: Type.Optional(Type.Union([Type.Object({
    uid: Type.String({ description: 'uid of the user' }),
    name: Type.Union([Type.String(), Type.Null()], { description: 'Name of the user; null once the user is deleted' })
  }), Type.Null()], { description: 'The user who released it; null for one made without a package' })),
  applicationManager: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'The device-side update path that installs it (MQTT_SW, MIHINI_APPCON, LWM2M_SW, LWM2M_FW, HAWKBIT...); null when its model names none' })),
  binaries: Type.Optional(Type.Array(BinaryView, { description: 'The binaries its package held for it, in the model\'s order' }))
}, { description: 'An application: every attribute, or those `fields` picks on the find', examples: [{ ...example, public: false, ...releasedExample }] })

export const ApplicationCreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Name' }),
  revision: Type.String({ minLength: 1, maxLength: 100, description: 'Revision; type and revision are unique in the company' }),
  type: Type.String({ minLength: 1, maxLength: 255, description: 'Type' }),
  // Optional, APPLICATION by default; SOFTWARE is taken as APPLICATION.
  category: Type.Optional(Type.Enum([...APPLICATION_CATEGORY_INPUTS], { default: 'APPLICATION', description: 'APPLICATION (default; SOFTWARE is taken as APPLICATION) or FIRMWARE' })),
  communication: Type.Optional(CommunicationSchema),
  data: Type.Optional(DataTreeSchema)
}, { examples: [{ name: example.name, revision: example.revision, type: example.type, category: example.category, communication: example.communication, data: example.data }] })

export const ApplicationUidParams = Type.Object({ uid: Type.String({ minLength: 1, description: 'uid of the application' }) })

export const ApplicationFindQuery = Type.Object({
  company: Type.Optional(CompanyParam),
  uid: Type.Optional(Type.String({ description: 'uid of the application' })),
  name: Type.Optional(Type.String({ description: 'Name contains this text' })),
  type: Type.Optional(Type.String({ description: 'Type contains this text' })),
  revision: Type.Optional(Type.String({ description: 'Revision contains this text' })),
  category: Type.Optional(Type.Enum([...APPLICATION_CATEGORY_INPUTS], { description: 'APPLICATION (or SOFTWARE) or FIRMWARE' })),
  fields: Type.Optional(listParam(`Attributes to return (${APPLICATION_FIELDS.join(', ')}); all when absent`, APPLICATION_FIELDS)),
  offset: PageQuery.offset,
  size: PageQuery.size
})
