// The configuration of the device edge: the transports' ports and deadlines, proxies, device logins and limits, the
// MSCI polls, the Sparkplug host and the external MQTT broker with its authentication endpoints.
import { addressList, bool, ConfigError, int, optional, type Env } from './values.js'
import type { PortOrOff } from './tls.config.js'

export interface DevicesConfig {
  /** Embedded MQTT broker port (docs/devices.md); `off`: MQTT over TLS only (MQTTS_PORT). */
  MQTT_PORT: PortOrOff
  /** M3DA TCP port (docs/devices.md). */
  M3DA_PORT: number
  /** LwM2M over plain CoAP, UDP (docs/protocols/lwm2m.md: NoSec devices only). */
  LWM2M_PORT: number
  /** LwM2M over DTLS 1.2 with PSK, UDP (docs/protocols/lwm2m.md). */
  LWM2MS_PORT: number
  /**
   * DTLS handshakes one address (an IPv6 one's /64) may start per second on LWM2MS_PORT once its burst is spent; a
   * ClientHello over it is dropped and counted (docs/protocols/lwm2m.md#handshakes-per-address). 0: no limit.
   */
  LWM2MS_HANDSHAKES_PER_S: number
  /** DTLS handshakes one address that was quiet may start at once on LWM2MS_PORT. */
  LWM2MS_HANDSHAKE_BURST: number
  /** The server id of M3DA security (docs/protocols/m3da.md: KS = MD5(serverId ‖ K)); the agents' default. */
  M3DA_SERVER_ID: string
  /** An MQTT connection (TCP or WebSocket) that has not been sent its CONNACK this long after it opened is closed (ms). */
  MQTT_CONNECT_TIMEOUT_MS: number
  /** An M3DA TCP connection without an authentic envelope this long after it opened is closed (ms). */
  M3DA_LOGIN_TIMEOUT_MS: number
  /**
   * Device connections not logged in yet that one remote address may hold at once, per listener kind (MQTT over TCP
   * and WebSocket together, M3DA over TCP); a connection beyond it is closed at once.
   */
  UNAUTHENTICATED_CONNECTIONS_PER_ADDRESS: number
  /**
   * Addresses or CIDR ranges of the reverse proxies in front of the service (docs/security.md#behind-a-proxy): only
   * from them is a forwarded client address believed (X-Forwarded-For, PROXY protocol). Empty: none.
   */
  TRUST_PROXY: string[]
  /** MQTT over TCP: every connection starts with a PROXY protocol header (v1 or v2) from a TRUST_PROXY address. */
  MQTT_PROXY_PROTOCOL: boolean
  /** M3DA over TCP: every connection starts with a PROXY protocol header (v1 or v2) from a TRUST_PROXY address. */
  M3DA_PROXY_PROTOCOL: boolean
  /** A connection whose PROXY protocol header is not complete this long after it opened is closed (ms). */
  PROXY_PROTOCOL_TIMEOUT_MS: number
  /** Device logins: wrong passwords for one login from one address before it waits (from all addresses: ten times). */
  DEVICE_LOGIN_THROTTLE_FAILURES: number
  /** Device logins: wrong passwords from one address (any device) before its logins wait. */
  DEVICE_LOGIN_THROTTLE_ADDRESS_FAILURES: number
  /** Device logins: the first wait (ms); each further failure doubles it, up to 15 minutes. */
  DEVICE_LOGIN_THROTTLE_BASE_MS: number
  /** The Sparkplug B host application id: the service's STATE topic is spBv1.0/STATE/<it>
  * (docs/protocols/sparkplug.md). */
  SPARKPLUG_HOST_ID: string
  /** AirLink gateways (MSCI) polled at once by one process. */
  MSCI_POLL_CONCURRENCY: number
  /** How long one SNMP or AceManager request to a gateway may take before the poll counts as failed (ms). */
  MSCI_TIMEOUT_MS: number
  /**
   * The networks of the AirLink gateways (addresses or CIDR ranges): when set, a gateway is polled only at an address
   * inside them. Link-local, cloud metadata, unspecified, multicast and broadcast addresses are never polled, and
   * loopback only when a loopback network is listed here itself (ingest/msci/host-guard.ts).
   */
  MSCI_ALLOWED_NETWORKS: string[] | undefined
  /**
   * An external MQTT broker: `mqtt://user:password@host:port`, the account the service uses there (the
   * same account administers Mosquitto's dynamic security). Absent: the embedded broker. Never logged whole.
   */
  MQTT_URL: string | undefined
  /**
   * With MQTT_URL: keep the devices' logins in Mosquitto's dynamic security (true, the default); false for a broker
   * that asks the HTTP authentication endpoints instead (EMQX, VerneMQ).
   */
  MQTT_DYNSEC: boolean
  /** With dynamic security: how often (s) one process of the cluster runs a full `fleet broker sync`; 0: never. */
  MQTT_DYNSEC_RESYNC_S: number
  /** The shared secret brokers send to the HTTP authentication endpoints (header X-Fleet-Broker-Secret or ?secret=). */
  BROKER_AUTH_SECRET: string | undefined
  /** Addresses (IPs, or CIDR ranges) allowed to call the HTTP authentication endpoints; undefined: any address. */
  BROKER_AUTH_ALLOW: string[] | undefined
  /**
   * With MQTT_URL: the trust bundle the external broker verifies device certificates against, written by the processes
   * with the worker role; set, the broker's logins include the systems a certificate logs in
   * (docs/cluster.md#device-certificates-with-the-external-broker).
   */
  BROKER_CA_FILE: string | undefined
  /** The companies' CAs go in BROKER_CA_FILE too (each then vouches for any login at the broker: off by default). */
  BROKER_COMPANY_CAS: boolean
  /**
   * Device limits (docs/security.md#device-limits): messages per second one device may send on one transport; a message
   * over the budget is refused (MQTT 5 PUBACK 0x97, REST 429, M3DA 503) and not stored. 0: no limit.
   */
  DEVICE_RATE_MESSAGES_PER_S: number
  /** Device limits: payload bytes per second one device may send on one transport. 0: no limit. */
  DEVICE_RATE_BYTES_PER_S: number
  /** Device limits: the burst, in seconds of each rate, a device that was quiet may send at once. */
  DEVICE_RATE_BURST_S: number
  /** Device limits: refusals of one device within 10 s after which its connection is closed (MQTT, M3DA); 0: never. */
  DEVICE_RATE_DISCONNECT_AFTER: number
  /** Device limits: messages of one connection waiting for their commit above which its socket is no longer read. */
  DEVICE_PENDING_MESSAGES: number
  /**
   * The ingest buffer's bound: approximate bytes of the device messages waiting for their commit, all devices
   * together; beyond it a message is refused as when the store is unavailable (the device sends it again).
   */
  INGEST_BUFFER_BYTES: number
}

// The URL is never echoed in an error: it holds the broker account's password.
export function mqttUrl (env: Env): string | undefined {
  const raw = optional(env, 'MQTT_URL')
  if (raw === undefined) return undefined
  let parsed: URL | undefined
  try { parsed = new URL(raw) } catch {}
  if (parsed === undefined || !['mqtt:', 'mqtts:', 'ws:', 'wss:'].includes(parsed.protocol) || parsed.hostname === '') {
    throw new ConfigError('MQTT_URL', 'must be a URL such as mqtt://user:password@host:1883 (mqtt, mqtts, ws or wss)')
  }
  return raw
}

/** The external broker's authentication endpoints and trust bundle. */
export function brokerConfig (env: Env): Pick<DevicesConfig, 'BROKER_AUTH_SECRET' | 'BROKER_AUTH_ALLOW' | 'BROKER_CA_FILE' | 'BROKER_COMPANY_CAS'> {
  return {
    BROKER_AUTH_SECRET: optional(env, 'BROKER_AUTH_SECRET'),
    BROKER_AUTH_ALLOW: addressList(env, 'BROKER_AUTH_ALLOW'),
    BROKER_CA_FILE: optional(env, 'BROKER_CA_FILE'),
    BROKER_COMPANY_CAS: bool(env, 'BROKER_COMPANY_CAS', false)
  }
}

/**
 * The ports of M3DA (TCP) and LwM2M (UDP: plain CoAP and CoAP over DTLS, IANA's 5683 and 5684; docs/protocols/lwm2m.md),
 * and the DTLS handshakes one address may start on LWM2MS_PORT.
 */
export function devicePorts (env: Env): Pick<DevicesConfig, 'M3DA_PORT' | 'LWM2M_PORT' | 'LWM2MS_PORT' | 'LWM2MS_HANDSHAKES_PER_S' | 'LWM2MS_HANDSHAKE_BURST'> {
  return {
    M3DA_PORT: int(env, 'M3DA_PORT', 44900, 0, 65535),
    LWM2M_PORT: int(env, 'LWM2M_PORT', 5683, 0, 65535),
    LWM2MS_PORT: int(env, 'LWM2MS_PORT', 5684, 0, 65535),
    LWM2MS_HANDSHAKES_PER_S: int(env, 'LWM2MS_HANDSHAKES_PER_S', 10, 0, 1_000_000),
    LWM2MS_HANDSHAKE_BURST: int(env, 'LWM2MS_HANDSHAKE_BURST', 50, 1, 1_000_000)
  }
}

/** The broker's trust bundle is written for an external broker only, and its options need it. */
export function checkBrokerTrust (config: Pick<DevicesConfig, 'MQTT_URL' | 'BROKER_CA_FILE' | 'BROKER_COMPANY_CAS'>): void {
  if (config.BROKER_CA_FILE !== undefined && config.MQTT_URL === undefined) throw new ConfigError('BROKER_CA_FILE', 'needs MQTT_URL (the external broker whose TLS listener reads it)')
  if (config.BROKER_COMPANY_CAS && config.BROKER_CA_FILE === undefined) throw new ConfigError('BROKER_COMPANY_CAS', 'needs BROKER_CA_FILE (the bundle the companies\' CAs would go in)')
}
