// The object models the decoders type values with: the seven objects of this folder by default, more (or other
// versions) through createObjectRegistry. A resource no model knows decodes as Opaque (TLV) or as its payload says.
import { CONNECTIVITY_MONITORING } from './connectivity.js'
import { DEVICE } from './device.js'
import { FIRMWARE_UPDATE } from './firmware.js'
import { LOCATION } from './location.js'
import type { ObjectModel, ResourceModel } from './model.js'
import { SECURITY } from './security.js'
import { SERVER } from './server.js'
import { SOFTWARE_MANAGEMENT } from './software.js'
import type { LwM2mPath } from '../types.js'

export interface ObjectRegistry {
  object (objectId: number): ObjectModel | undefined
  resource (objectId: number, resourceId: number): ResourceModel | undefined
}

export const DEFAULT_OBJECTS: readonly ObjectModel[] = [
  SECURITY, SERVER, DEVICE, CONNECTIVITY_MONITORING, FIRMWARE_UPDATE, LOCATION, SOFTWARE_MANAGEMENT
]

/** A registry of these objects; a later one with the id of an earlier one replaces it. */
export function createObjectRegistry (objects: readonly ObjectModel[] = DEFAULT_OBJECTS): ObjectRegistry {
  const byId = new Map(objects.map((o) => [o.id, { model: o, resources: new Map(o.resources.map((res) => [res.id, res])) }]))
  return {
    object: (objectId) => byId.get(objectId)?.model,
    resource: (objectId, resourceId) => byId.get(objectId)?.resources.get(resourceId)
  }
}

export const DEFAULT_REGISTRY: ObjectRegistry = createObjectRegistry()

/** The model of the resource a resource or resource-instance path names. */
export function resourceAt (path: LwM2mPath, registry: ObjectRegistry = DEFAULT_REGISTRY): ResourceModel | undefined {
  return path.resourceId === undefined ? undefined : registry.resource(path.objectId, path.resourceId)
}

/**
 * The meaning of an enumerated value (`/5/0/5` = 8 → "Firmware update failed"); undefined when the resource has no
 * named values or this value has no name.
 */
export function valueName (path: LwM2mPath, value: unknown, registry: ObjectRegistry = DEFAULT_REGISTRY): string | undefined {
  const names = resourceAt(path, registry)?.values
  if (names === undefined) return undefined
  const n = typeof value === 'bigint' ? Number(value) : value
  return typeof n === 'number' && Number.isInteger(n) ? names[n] : undefined
}
