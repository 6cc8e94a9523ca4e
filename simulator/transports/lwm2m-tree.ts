// The object tree of a simulated LwM2M client (OMA-TS-LightweightM2M-Core 1.1 §6.1, §6.3): objects of instances of
// resources, what each operation of the Device Management interface reaches, and the links a registration or a
// Discover lists. No sockets and no CoAP: lwm2m-requests.ts turns requests into these calls. The resource models
// (types, R/W/E) are those of protocols/lwm2m, so a Read never shows a write-only resource and a Write never reaches
// an executable one.
import { resourceAt, type LwM2mPath, type LwM2mValue, type WriteValue } from '../../protocols/lwm2m/index.js'

/** What an operation came to; lwm2m-requests.ts maps it to a CoAP code (§6.3 tables). */
export type Outcome = 'ok' | 'not.found' | 'not.allowed' | 'bad.request'

/** A resource value now: one value, or a multiple resource's values by resource instance id. */
export type ResourceValue = LwM2mValue | ReadonlyMap<number, LwM2mValue>

/** One object instance: its readable values, and what Write and Execute do to it. */
export interface InstanceResources {
  /** The values of the resources it has (write-only ones included: the tree filters by the model). */
  values (): ReadonlyMap<number, ResourceValue>
  write? (resourceId: number, value: LwM2mValue): Outcome
  execute? (resourceId: number, args: string): Outcome
  /** The executable resources it has (listed by Discover, never read). */
  readonly executables?: readonly number[]
}

/** One object: its instances now, and Create / Delete where the object allows them (Object 9). */
export interface ObjectInstances {
  readonly id: number
  readonly version: string
  instances (): ReadonlyMap<number, InstanceResources>
  /** Creates an instance (id given or the first free one); answers its id, undefined when refused. */
  create? (instanceId: number | undefined): number | undefined
  delete? (instanceId: number): Outcome
}

export type ReadResult = { outcome: 'ok', values: WriteValue[] } | { outcome: Exclude<Outcome, 'ok'> }

const readable = (path: LwM2mPath): boolean => {
  const ops = resourceAt(path)?.operations
  return ops === 'R' || ops === 'RW'
}

function resourceValues (objectId: number, instanceId: number, resourceId: number, value: ResourceValue): WriteValue[] {
  if (!(value instanceof Map)) return [{ path: { objectId, instanceId, resourceId }, value: value as LwM2mValue }]
  return [...value].map(([resourceInstanceId, v]) => ({ path: { objectId, instanceId, resourceId, resourceInstanceId }, value: v }))
}

function instanceValues (objectId: number, instanceId: number, inst: InstanceResources, only?: number): WriteValue[] {
  const out: WriteValue[] = []
  for (const [resourceId, value] of inst.values()) {
    if (only !== undefined && resourceId !== only) continue
    if (!readable({ objectId, instanceId, resourceId })) continue
    out.push(...resourceValues(objectId, instanceId, resourceId, value))
  }
  return out
}

export class Lwm2mTree {
  private readonly objects = new Map<number, ObjectInstances>()

  constructor (objects: readonly ObjectInstances[]) {
    for (const o of objects) this.objects.set(o.id, o)
  }

  object (id: number): ObjectInstances | undefined { return this.objects.get(id) }

  instance (path: LwM2mPath): InstanceResources | undefined {
    return path.instanceId === undefined ? undefined : this.objects.get(path.objectId)?.instances().get(path.instanceId)
  }

  /** Read (§6.3.1) of an object, an instance, a resource or a resource instance. */
  read (path: LwM2mPath): ReadResult {
    const object = this.objects.get(path.objectId)
    if (object === undefined) return { outcome: 'not.found' }
    if (path.instanceId === undefined) {
      return { outcome: 'ok', values: [...object.instances()].flatMap(([id, inst]) => instanceValues(path.objectId, id, inst)) }
    }
    const inst = object.instances().get(path.instanceId)
    if (inst === undefined) return { outcome: 'not.found' }
    if (path.resourceId === undefined) return { outcome: 'ok', values: instanceValues(path.objectId, path.instanceId, inst) }
    if (resourceAt(path) !== undefined && !readable(path)) return { outcome: 'not.allowed' }
    let values = instanceValues(path.objectId, path.instanceId, inst, path.resourceId)
    if (path.resourceInstanceId !== undefined) values = values.filter((v) => v.path.resourceInstanceId === path.resourceInstanceId)
    return values.length === 0 ? { outcome: 'not.found' } : { outcome: 'ok', values }
  }

  /** Write (§6.3.3) of decoded values under `path`; every value is checked writable before any is applied. */
  write (path: LwM2mPath, values: ReadonlyArray<{ path: LwM2mPath, value: LwM2mValue }>): Outcome {
    if (path.instanceId === undefined) return 'not.allowed'
    const inst = this.instance(path)
    if (inst === undefined) return 'not.found'
    for (const v of values) {
      const ops = resourceAt(v.path)?.operations
      if (v.path.instanceId !== path.instanceId) return 'bad.request'
      if (ops !== 'W' && ops !== 'RW') return 'not.allowed'
    }
    if (inst.write === undefined) return 'not.allowed'
    for (const v of values) {
      const outcome = inst.write(v.path.resourceId ?? -1, v.value)
      if (outcome !== 'ok') return outcome
    }
    return 'ok'
  }

  /** Execute (§6.3.5) of a resource. */
  execute (path: LwM2mPath, args: string): Outcome {
    if (path.resourceId === undefined || path.resourceInstanceId !== undefined) return 'not.allowed'
    const inst = this.instance(path)
    if (inst === undefined) return 'not.found'
    if (resourceAt(path)?.operations !== 'E' || inst.execute === undefined) return 'not.allowed'
    return inst.execute(path.resourceId, args)
  }

  /**
   * The object and instance links of a registration (§6.2.1), `ver` on objects past 1.0; a 1.0 client has no `ver`
   * to give (its objects are the 1.0 ones as far as the server is told).
   */
  registrationLinks (withVersions = true): string[] {
    const links: string[] = []
    for (const o of [...this.objects.values()].sort((a, b) => a.id - b.id)) {
      const ids = [...o.instances().keys()].sort((a, b) => a - b)
      const ver = o.version === '1.0' || !withVersions ? '' : `;ver=${o.version}`
      if (ids.length === 0 || ver !== '') links.push(`</${o.id}>${ver}`)
      for (const id of ids) links.push(`</${o.id}/${id}>`)
    }
    return links
  }

  /** Discover (§6.3.4): the links under `path` (objects down to their resources); undefined for a path it lacks. */
  discover (path: LwM2mPath, attributesOf: (p: LwM2mPath) => string): string[] | undefined {
    const object = this.objects.get(path.objectId)
    if (object === undefined) return undefined
    const self = (p: LwM2mPath, target: string): string => `<${target}>${attributesOf(p)}`
    const out: string[] = []
    if (path.instanceId === undefined) out.push(self(path, `/${path.objectId}`) + (object.version === '1.0' ? '' : `;ver=${object.version}`))
    for (const [id, inst] of object.instances()) {
      if (path.instanceId !== undefined && id !== path.instanceId) continue
      if (path.resourceId === undefined) out.push(self({ objectId: path.objectId, instanceId: id }, `/${path.objectId}/${id}`))
      const ids = [...inst.values().keys(), ...(inst.executables ?? [])].sort((a, b) => a - b)
      for (const resourceId of ids) {
        if (path.resourceId !== undefined && resourceId !== path.resourceId) continue
        out.push(self({ objectId: path.objectId, instanceId: id, resourceId }, `/${path.objectId}/${id}/${resourceId}`))
      }
    }
    return out.length === 0 ? undefined : out
  }
}
