// The predefined M3DA classes (docs/protocols/m3da.md): known to both peers, never sent in-band.
import { Ctx, type ClassDef } from '../bysant/index.js'

export const ClassId = { Envelope: 0, Message: 1, Response: 2, DeltasVector: 3, QuasiPeriodicVector: 4 } as const

export const M3DA_CLASSES: readonly ClassDef[] = [
  {
    id: ClassId.Envelope,
    name: 'Envelope',
    fields: [{ name: 'header', ctx: Ctx.ListMap }, { name: 'payload', ctx: Ctx.UIS }, { name: 'footer', ctx: Ctx.ListMap }]
  },
  {
    id: ClassId.Message,
    name: 'Message',
    fields: [{ name: 'path', ctx: Ctx.UIS }, { name: 'ticketid', ctx: Ctx.UIS }, { name: 'body', ctx: Ctx.ListMap }]
  },
  {
    id: ClassId.Response,
    name: 'Response',
    fields: [{ name: 'ticketid', ctx: Ctx.UIS }, { name: 'status', ctx: Ctx.Numbers }, { name: 'data', ctx: Ctx.UIS }]
  },
  {
    id: ClassId.DeltasVector,
    name: 'DeltasVector',
    fields: [{ name: 'factor', ctx: Ctx.Numbers }, { name: 'start', ctx: Ctx.Numbers }, { name: 'deltas', ctx: Ctx.ListMap }]
  },
  {
    id: ClassId.QuasiPeriodicVector,
    name: 'QuasiPeriodicVector',
    fields: [{ name: 'period', ctx: Ctx.Numbers }, { name: 'start', ctx: Ctx.Numbers }, { name: 'shifts', ctx: Ctx.ListMap }]
  }
]
