// Spec conventions, once (docs/architecture.md#layers): paging, the company parameter, error bodies, list params.
import { Type, type Static, type TSchema } from 'typebox'
import { Offset } from './numbers.schema.js'

// No length bound: an over-long uid is simply unknown (system.unknown, company.unknown...), never value.too.long.
export const Uid = Type.String({ minLength: 1 })

/** A uid parameter, described for the OpenAPI document (every parameter says what it names). */
export const UidOf = (description: string) => Type.String({ minLength: 1, description })

/**
 * Allowed values shown in the OpenAPI document only (merged by api/openapi.ts). For parameters the service checks
 * itself: a schema `enum` or `pattern` would answer unknown.enum.value or request.invalid instead of the code
 * docs/api.md#using-the-api gives (aggregation.invalid.timescale, sort.invalid.field, ...), and a `maximum` would
 * refuse what docs/api.md#using-the-api clamps.
 */
export const documented = (allowed: { enum?: readonly unknown[], pattern?: string, minimum?: number, maximum?: number, default?: unknown }) =>
  ({ 'x-allowed': allowed })

/** docs/api.md#using-the-api: the optional context company. */
export const CompanyParam = UidOf('Context company: the uid of the caller\'s company (the default) or of a partner company')
export const CompanyQuery = Type.Object({ company: Type.Optional(CompanyParam) })

export const uidParams = (description: string) => Type.Object({ uid: UidOf(description) })

/** Repeated keys or comma separated (docs/api.md#using-the-api). */
export const ListParam = Type.Union([Type.String(), Type.Array(Type.String())])
/** A list parameter; its allowed values, when given, are shown on the items of the repeated-keys form. */
export const listParam = (description: string, values?: readonly string[]) =>
  Type.Union([Type.String(), Type.Array(Type.String(values === undefined ? {} : documented({ enum: values })))], {
    description: `${description}. Several values: comma separated or repeated keys`
  })

/** docs/api.md#using-the-api: paging, fields, sort. */
export const PageQuery = {
  offset: Type.Optional(Offset({ default: 0, description: 'Index of the first item of the page' })),
  size: Type.Optional(Type.Integer({ minimum: 0, default: 100, description: 'Items per page, at most 500 (a larger size is clamped to 500)', ...documented({ maximum: 500 }) })),
  fields: Type.Optional(listParam('Attributes to return (nested names such as gateway or data allowed)')),
  orderBy: Type.Optional(listParam('Sort order: <field>[:asc|:desc], only the sortable fields of this list (others answer sort.invalid.field)')),
  asc: Type.Optional(listParam('Sort ascending by these fields (alias of orderBy=<field>:asc)')),
  desc: Type.Optional(listParam('Sort descending by these fields (alias of orderBy=<field>:desc)'))
}

/** docs/api.md#using-the-api; the example of the item, when it has one, makes the page's. */
export function Page<T extends TSchema> (item: T) {
  const example = (item as { examples?: unknown[] }).examples?.[0]
  return Type.Object({
    items: Type.Array(item, { description: 'The items of this page' }),
    count: Type.Integer({ description: 'How many items match in all' }),
    size: Type.Integer({ description: 'How many items this page holds' }),
    offset: Type.Integer({ description: 'Index of the first item of this page' })
  }, { description: 'A page of the list', ...(example === undefined ? {} : { examples: [{ items: [example], count: 1, size: 1, offset: 0 }] }) })
}

/** docs/api.md#using-the-api: one shared component, referenced by every route. */
export const ErrorBody = Type.Object({
  error: Type.String({ description: 'The error code', examples: ['system.unknown'] }),
  errorParameters: Type.Array(Type.String(), { description: 'What the code refers to, as strings' })
}, { $id: 'ErrorBody', title: 'ErrorBody', description: 'An error', examples: [{ error: 'system.unknown', errorParameters: ['5d0a9c7e4b6f4c2f8a1e3b7d9c0f1a2b'] }] })

/** docs/api.md#using-the-api: a missing, invalid or expired token (RFC 6750). */
export const TokenErrorBody = Type.Object({
  error: Type.String({ description: 'invalid_token' }),
  error_description: Type.String({ description: 'Why the token was refused' })
}, { $id: 'TokenError', title: 'TokenError', description: 'A refused access token', examples: [{ error: 'invalid_token', error_description: 'The access token is unknown or expired' }] })

/** Registered once on the API (api/app.ts) so that responses can reference them. */
export const sharedSchemas = [ErrorBody, TokenErrorBody]

type ErrorShape = Static<typeof ErrorBody>
const ref = <T>(id: string, description: string, extra: Record<string, unknown> = {}) => Type.Unsafe<T>({ $ref: `${id}#`, description, ...extra })

/** The error responses of docs/api.md#using-the-api, for the `response` of a route (with its 200). */
export const errors = {
  400: ref<ErrorShape>('ErrorBody', 'Business or validation error: the code names what is wrong and how to fix it'),
  401: ref<Static<typeof TokenErrorBody>>('TokenError', 'No access token, or an invalid or expired one'),
  403: ref<ErrorShape>('ErrorBody', 'missing.rights: the caller lacks the right named in errorParameters'),
  404: ref<ErrorShape>('ErrorBody', 'not.found: no such route'),
  429: ref<ErrorShape>('ErrorBody', 'rate.limit.exceeded: too many requests for this token', {
    headers: { 'retry-after': { type: 'integer', description: 'Seconds to wait before the next request' } }
  }),
  500: ref<ErrorShape>('ErrorBody', 'internal.error: a fault of the service (its cause is logged, never answered)'),
  503: ref<ErrorShape>('ErrorBody', 'service.unavailable: overloaded, or the store connection was lost; nothing changed, try again', {
    headers: { 'retry-after': { type: 'integer', description: 'Seconds to wait before trying again' } }
  })
}

/** An empty 200 body (docs/api.md: "empty 200 response"). */
export const Empty = Type.Unsafe<undefined>({ type: 'null', description: 'Empty body' })
