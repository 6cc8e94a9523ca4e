// Spec conventions, once (shared/style.md §2.5): paging, the company parameter, error bodies, list params.
import { Type, type TSchema } from 'typebox'

// No length bound: an over-long uid is simply unknown (system.unknown, company.unknown...), never value.too.long.
export const Uid = Type.String({ minLength: 1 })

/** fleet-api.md §Conventions 6: the optional context company. */
export const CompanyQuery = Type.Object({ company: Type.Optional(Uid) })

export const UidParams = Type.Object({ uid: Uid })

/** Repeated keys or comma separated (conventions.md §HTTP basics). */
export const ListParam = Type.Union([Type.String(), Type.Array(Type.String())])

export const PageQuery = {
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  size: Type.Optional(Type.Integer({ minimum: 0 })),
  fields: Type.Optional(ListParam),
  orderBy: Type.Optional(ListParam),
  asc: Type.Optional(ListParam),
  desc: Type.Optional(ListParam)
}

/** fleet-api.md §Conventions 7. */
export function Page<T extends TSchema> (item: T) {
  return Type.Object({ items: Type.Array(item), count: Type.Integer(), size: Type.Integer(), offset: Type.Integer() })
}

/** conventions.md §Errors. */
export const ErrorBody = Type.Object({ error: Type.String(), errorParameters: Type.Array(Type.String()) })

export const errors = { 400: ErrorBody, 403: ErrorBody }
