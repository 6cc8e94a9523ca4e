// Setting templates: named settings of a company, the `templateId` of apply settings.
import { Type } from 'typebox'
import { TEMPLATE_FIELDS } from '../../core/services/templates.service.js'
import { CompanyParam, listParam, PageQuery } from './common.schema.js'

const Setting = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 255, description: 'Data id of the setting (config.reportPeriodS)' }),
  // docs/operations.md#bulk-operations: the JSON type of the value is the setting's type.
  value: Type.Union([Type.Boolean(), Type.Number(), Type.String({ maxLength: 10_000 })], { description: 'Value: true/false is a boolean, 1.0 a double, 1 an integer, a string a string' })
}, { additionalProperties: false })

const example = { uid: '3f1c2d4e6f8a0b1c3f9c2b7a1d4e4f6a', name: 'Default reporting', settings: [{ key: 'config.reportPeriodS', value: 300 }, { key: 'config.gpsEnabled', value: true }] }

export const TemplateView = Type.Object({
  uid: Type.Optional(Type.String({ description: 'uid of the template (the templateId of apply settings)' })),
  name: Type.Optional(Type.String({ description: 'Name, unique in the company' })),
  settings: Type.Optional(Type.Array(Setting, { description: 'Settings, each key once' }))
}, { description: 'A setting template: every attribute, or those `fields` picks on the list', examples: [example] })

export const TemplateCreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Name, unique in the company (template.not.unique)' }),
  settings: Type.Array(Setting, { maxItems: 500, description: 'Settings; a key given twice answers operation.invalid.multiple.entries.for.same.key' })
}, { examples: [{ name: example.name, settings: example.settings }] })

export const TemplateFindQuery = Type.Object({
  company: Type.Optional(CompanyParam),
  name: Type.Optional(Type.String({ description: 'Name contains this text' })),
  fields: Type.Optional(listParam(`Attributes to return (${TEMPLATE_FIELDS.join(', ')}); all when absent`, TEMPLATE_FIELDS)),
  offset: PageQuery.offset,
  size: PageQuery.size
})
