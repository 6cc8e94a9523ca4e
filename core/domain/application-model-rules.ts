// The rules of the application model that its JSON schema cannot say (docs/api.md#applications-and-templates): a data
// id must name one element, so sibling ids differ; children, parameters and actionType belong to one element type
// each (flattenData would silently drop them elsewhere); a protocol is listed once, with parameters it understands.
import type { CommunicationEntry, DataNode } from './application-model.js'

/** What to fix: the field, as a JSON path from the body (`body/0/data/1/id`), and why. */
export interface ModelProblem { field: string, message: string }

/** The first problem of a data tree, in tree order, or undefined when it holds none. */
export function dataTreeProblem (tree: readonly DataNode[], at = 'body'): ModelProblem | undefined {
  const seen = new Set<string>()
  for (const [i, n] of tree.entries()) {
    const here = `${at}/${i}`
    if (seen.has(n.id)) return { field: `${here}/id`, message: `duplicate id "${n.id}" among its siblings` }
    seen.add(n.id)
    if (n.elementType !== 'node' && (n.data ?? []).length > 0) return { field: `${here}/data`, message: 'only a node has children' }
    if (n.elementType !== 'action' && n.actionType != null) return { field: `${here}/actionType`, message: 'only an action has an actionType' }
    if (n.elementType !== 'command' && (n.parameters ?? []).length > 0) return { field: `${here}/parameters`, message: 'only a command has parameters' }
    const params = new Set<string>()
    for (const [j, p] of (n.parameters ?? []).entries()) {
      if (params.has(p.id)) return { field: `${here}/parameters/${j}/id`, message: `duplicate parameter id "${p.id}"` }
      params.add(p.id)
    }
    const below = dataTreeProblem(n.data ?? [], `${here}/data`)
    if (below !== undefined) return below
  }
  return undefined
}

// The parameters (docs/protocols/msci.md) of the MSCI (and SNMP) and M3DA entries.
const MSCI_ACCESS = ['snmp', 'acemanager']
const SNMP_VERSIONS = ['2c', '3']
const M3DA_ENCRYPTIONS = ['none', 'aes-cbc-128', 'aes-cbc-256', 'aes-ctr-128', 'aes-ctr-256']

const isInt = (v: unknown, min: number, max: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max

/** A problem of one parameter, with `unknown` true when the value is outside an enumeration. */
export interface ParameterProblem extends ModelProblem { unknownValue: boolean }

function parameterProblem (e: CommunicationEntry, at: string): ParameterProblem | undefined {
  const p = e.parameters ?? {}
  const oneOf = (key: string, allowed: readonly string[]): ParameterProblem | undefined =>
    p[key] === undefined || (typeof p[key] === 'string' && allowed.includes(p[key]))
      ? undefined
      : { field: `${at}/parameters/${key}`, message: `must be one of ${allowed.join(', ')}`, unknownValue: true }
  const int = (key: string, min: number, max: number): ParameterProblem | undefined =>
    p[key] === undefined || isInt(p[key], min, max)
      ? undefined
      : { field: `${at}/parameters/${key}`, message: `must be an integer from ${min} to ${max}`, unknownValue: false }
  if (e.type === 'MSCI') return oneOf('access', MSCI_ACCESS) ?? oneOf('snmpVersion', SNMP_VERSIONS) ?? int('port', 1, 65535) ?? int('pollPeriodS', 1, 31_536_000)
  // SNMP is MSCI over SNMP (docs/protocols/msci.md): the same parameters, its access SNMP only.
  if (e.type === 'SNMP') return oneOf('access', ['snmp']) ?? oneOf('snmpVersion', SNMP_VERSIONS) ?? int('port', 1, 65535) ?? int('pollPeriodS', 1, 31_536_000)
  if (e.type === 'M3DA') {
    const auth = p.authentication
    if (auth !== undefined && typeof auth !== 'string') return { field: `${at}/parameters/authentication`, message: 'must be a string', unknownValue: false }
    return oneOf('encryption', M3DA_ENCRYPTIONS)
  }
  return undefined
}

/** The first problem of a communication list, or undefined when it holds none. */
export function communicationProblem (entries: readonly CommunicationEntry[], at = 'body'): ParameterProblem | undefined {
  const seen = new Set<string>()
  for (const [i, e] of entries.entries()) {
    if (seen.has(e.type)) return { field: `${at}/${i}/type`, message: `${e.type} is listed twice`, unknownValue: false }
    seen.add(e.type)
    const bad = parameterProblem(e, `${at}/${i}`)
    if (bad !== undefined) return bad
  }
  return undefined
}
