// MSCI id ↔ SNMP OID of the ALEOS private MIB (docs/protocols/msci.md): `1.3.6.1.4.1.20542.9.1.<group>.<id>.0`, the
// OID leaf being the MSCI id. Reads use the group of the id table; an id outside the table (a retrieve or a setting
// naming any id) and every write use the configuration group 12, where §5.3's writable items (SNMP settings, the
// reboot 65001) sit.
import { SNMP_CONFIG_GROUP, entryOf, isMsciId } from './ids.js'

export const ALEOS_MIB = '1.3.6.1.4.1.20542.9.1'

export function readOid (id: number): string {
  const group = entryOf(id)?.snmp ?? SNMP_CONFIG_GROUP
  return `${ALEOS_MIB}.${group}.${id}.0`
}

export function writeOid (id: number): string {
  return `${ALEOS_MIB}.${SNMP_CONFIG_GROUP}.${id}.0`
}

/** The MSCI id of an ALEOS OID (`…9.1.<group…>.<id>.0`), or undefined for any other OID. */
export function idOfOid (oid: string): number | undefined {
  if (!oid.startsWith(`${ALEOS_MIB}.`) || !oid.endsWith('.0')) return undefined
  const parts = oid.slice(ALEOS_MIB.length + 1, -2).split('.')
  if (parts.length < 2) return undefined
  const last = parts[parts.length - 1] ?? ''
  if (!/^\d{1,5}$/.test(last)) return undefined
  const id = Number(last)
  return isMsciId(id) ? id : undefined
}
