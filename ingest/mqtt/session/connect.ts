// CONNECT: the device's login (docs/protocols/mqtt.md), the same rules for every version, answered in each version's
// codes. MQTT 3.1/3.1.1: return code 4 for bad or missing credentials, 5 for a filtered address or a refused
// certificate, 3 when the store is unavailable, 2 for an empty client id without a clean session. MQTT 5: 0x86, 0x87,
// 0x88, and 0x97 (quota exceeded) while the device's logins are throttled after wrong passwords, so that it backs off.
// A client certificate presented in the TLS handshake replaces the username and password (docs/security.md#device-
// certificates): they are then not read at all.
import type { IConnectPacket, Packet } from 'mqtt-packet'
import type { DeviceAuthResult } from '../../../core/services/ingest/devices.service.js'
import type { MqttSession } from './session.js'
import { connectionOf } from './connection.js'
import { RC4, RC5 } from './reason-codes.js'

function connack (s: MqttSession, code: number): void {
  if (!s.v5) { s.send({ cmd: 'connack', returnCode: code, sessionPresent: false } as Packet); return }
  const properties = code === RC5.success
    ? { properties: { maximumQoS: 1, retainAvailable: false, wildcardSubscriptionAvailable: true, maximumPacketSize: s.deps.maxPacketBytes } }
    : {}
  s.send({ cmd: 'connack', reasonCode: code, sessionPresent: false, ...properties } as Packet)
}

// Refusals that are not about a wrong password: the device is known to be denied (its address, its certificate, or a
// password where its application asks for a certificate), "not authorized" rather than "bad credentials".
const NOT_AUTHORIZED = new Set(['device.ip.forbidden', 'device.x509.required'])

/** The code refusing a login the devices service refused (`reason` undefined: no username at all). */
function refusal (s: MqttSession, reason: string | undefined): number {
  const denied = reason !== undefined && (NOT_AUTHORIZED.has(reason) || s.certificate !== undefined)
  if (s.v5) return reason === 'device.throttled' ? RC5.quotaExceeded : denied ? RC5.notAuthorized : RC5.badCredentials
  return denied ? RC4.notAuthorized : RC4.badCredentials
}

/** What is wrong with the CONNECT before the login is checked, as a refusal code; undefined: nothing. */
function precheck (s: MqttSession, p: IConnectPacket): number | undefined {
  if (p.clientId === '' && p.clean === false && !s.v5) return RC4.identifierRejected
  // A certificate login needs neither username nor password (mosquitto_pub --cert sends none).
  if (s.certificate !== undefined) return undefined
  // MQTT 5 allows an empty client id (§3.1.3.1) and a login with no password (checked as an empty one).
  if (s.v5) return (p.username ?? '') === '' ? RC5.badCredentials : undefined
  // (MQTT 3.1.1 §3.1.3.1: an empty client id needs a clean session, checked above.)
  if ((p.username ?? '') === '' || p.password === undefined) return RC4.badCredentials
  return undefined
}

function refuse (s: MqttSession, code: number): void { connack(s, code); s.close() }

export async function onConnect (s: MqttSession, p: IConnectPacket): Promise<void> {
  // MQTT 3.1.1 and 5.0 §3.1.0-2: a second CONNECT is a protocol violation.
  if (s.session !== undefined) { s.close(RC5.protocolError); return }
  const early = precheck(s, p)
  if (early !== undefined) { refuse(s, early); return }
  let auth: DeviceAuthResult
  try {
    auth = s.certificate !== undefined
      ? await s.deps.devices.authenticateCertificate(s.certificate, 'mqtt', s.remoteAddress)
      : await s.deps.devices.authenticate(p.username ?? '', p.password?.toString('utf8') ?? '', 'mqtt', s.remoteAddress)
  } catch (err) {
    // The login could not be checked (the store is unavailable): "server unavailable", which devices retry, rather
    // than a refusal of their credentials.
    s.deps.log.error({ err }, s.v5 ? 'mqtt5 authentication failed' : 'mqtt authentication failed')
    refuse(s, s.v5 ? RC5.serverUnavailable : RC4.serverUnavailable)
    return
  }
  // Closed while the login was checked (its deadline passed, the device left): nothing to register.
  if (s.closed) return
  if (!auth.ok) { refuse(s, refusal(s, auth.reason)); return }
  // Client ids are free (docs/protocols/mqtt.md#connections-and-client-ids), scoped to their system: a connection of
  // the same system with the same id is taken over (MQTT 3.1.1 and 5.0 §3.1.4); another system's is never touched
  // (registry.ts).
  const claim = s.deps.registry.claim(auth.session.systemUid, p.clientId)
  if (claim.kind === 'take-over') claim.holder.close({ takenOver: true })
  s.session = auth.session
  s.will = p.will ?? undefined
  s.keepAliveMs = (p.keepalive ?? 0) * 1000
  connack(s, s.v5 ? RC5.success : RC4.accepted)
  // The keep alive runs from the CONNACK: a device silent from then on is closed like one that went silent later.
  s.touch()
  s.onLoggedIn()
  s.self = connectionOf(s, auth.session, p.clientId)
  s.deps.registry.add(s.self)
}
