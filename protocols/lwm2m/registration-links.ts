// What a client's registration links say (OMA-TS-LightweightM2M-Core 1.1 §6.2.1 Register, §5.3.1 of 1.0): the
// objects and object instances it supports, each object's version (`ver`, 1.0 when absent), its alternate root path
// (the link with `rt="oma.lwm2m"`, `/` by default) and the content formats it advertises on that link (`ct`,
// "60 110 112 11542 11543" in 1.1; 1.0 clients write `ct=11543` when they support JSON). Links outside the root
// path or deeper than an object instance are not the registration's and are listed as ignored, as is the Security
// object, which §6.2.1 keeps out of the registration.
import { linkAttribute, parseLinkFormat, type Link } from './link-format.js'
import { parsePath } from './path.js'
import type { Decoded } from './types.js'

export interface RegisteredObject {
  objectId: number
  /** The `ver` of the object link; '1.0' when the client wrote none. */
  version: string
  /** Sorted; empty when the client supports the object but has no instance of it yet. */
  instances: number[]
}

export interface RegistrationLinks {
  /** `/`, or the alternate path (`/lwm2m`) that requests must be prefixed with. */
  rootPath: string
  /** The `ct` of the root link, in the client's order; empty when it advertised none. */
  contentFormats: number[]
  /** Sorted by object id. */
  objects: RegisteredObject[]
  /** The targets of the links that are not objects or object instances. */
  ignored: string[]
}

const VERSION = /^\d{1,3}\.\d{1,3}$/

function isRootLink (l: Link): boolean {
  const rt = linkAttribute(l, 'rt')
  return typeof rt === 'string' && rt.split(' ').includes('oma.lwm2m')
}

function contentFormatsOf (l: Link | undefined): number[] {
  const ct = l === undefined ? undefined : linkAttribute(l, 'ct')
  if (typeof ct !== 'string') return []
  return ct.split(' ').filter((t) => /^\d{1,5}$/.test(t) && Number(t) <= 65535).map(Number)
}

/** Interprets parsed registration links. */
export function interpretRegistrationLinks (links: readonly Link[]): RegistrationLinks {
  const root = links.find(isRootLink)
  const rootPath = root === undefined || root.target === '/' ? '/' : root.target.replace(/\/+$/, '')
  const objects = new Map<number, { version: string, instances: Set<number> }>()
  const ignored: string[] = []
  for (const l of links) {
    if (l === root) continue
    const relative = rootPath === '/' ? l.target : l.target.startsWith(rootPath + '/') ? l.target.slice(rootPath.length) : undefined
    const parsed = relative === undefined ? undefined : parsePath(relative)
    const path = parsed?.ok === true ? parsed.path : undefined
    if (path === undefined || path.resourceId !== undefined || path.objectId === 0) {
      ignored.push(l.target)
      continue
    }
    const entry = objects.get(path.objectId) ?? { version: '1.0', instances: new Set<number>() }
    objects.set(path.objectId, entry)
    const ver = linkAttribute(l, 'ver')
    if (typeof ver === 'string' && VERSION.test(ver)) entry.version = ver
    if (path.instanceId !== undefined) entry.instances.add(path.instanceId)
  }
  return {
    rootPath,
    contentFormats: contentFormatsOf(root),
    objects: [...objects].sort(([a], [b]) => a - b).map(([objectId, o]) => ({
      objectId, version: o.version, instances: [...o.instances].sort((a, b) => a - b)
    })),
    ignored
  }
}

/** Parses and interprets the payload of a Register or Update request. */
export function parseRegistrationLinks (payload: string | Uint8Array): Decoded<{ registration: RegistrationLinks }> {
  const parsed = parseLinkFormat(payload)
  return parsed.ok ? { ok: true, registration: interpretRegistrationLinks(parsed.links) } : parsed
}
