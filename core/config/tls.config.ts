// The configuration of the TLS listeners (docs/security.md#tls): the server's certificate and key, the CAs trusted
// for client certificates, the MQTTS and HTTPS ports, and the rules that tie them to the plain listeners (a plain
// port switched off needs its TLS counterpart, or devices and users would have nothing to connect to).
import { ConfigError, int, optional, type Env } from './values.js'

/** A listener's port, or `off` (the plain HTTP and MQTT listeners only: docs/configuration.md). */
export type PortOrOff = number | 'off'

export interface TlsConfig {
  /** PEM file of the server's certificate, its chain after it; with TLS_KEY_FILE, the MQTTS and HTTPS listeners exist. */
  TLS_CERT_FILE: string | undefined
  /** PEM file of the certificate's private key (never logged, never shown in an error). */
  TLS_KEY_FILE: string | undefined
  /** PEM bundle of CAs whose client certificates the TLS listeners verify (mutual TLS); absent: none but the companies' registered CAs. */
  TLS_CLIENT_CA_FILE: string | undefined
  /** MQTT over TLS (docs/devices.md). */
  MQTTS_PORT: number
  /** HTTPS: the API, the console, the device routes and the WebSockets of the HTTP port. */
  HTTPS_PORT: number
}

/** A port (0 to 65535, 0: any free one) or the word `off`. */
export function portOrOff (env: Env, name: string, fallback: number): PortOrOff {
  const raw = optional(env, name)
  if (raw !== undefined && raw.trim().toLowerCase() === 'off') return 'off'
  return int(env, name, fallback, 0, 65535)
}

export function tlsConfig (env: Env): TlsConfig {
  const cert = optional(env, 'TLS_CERT_FILE')
  const key = optional(env, 'TLS_KEY_FILE')
  const ca = optional(env, 'TLS_CLIENT_CA_FILE')
  // One without the other would start a service that silently has no TLS listener.
  if (cert !== undefined && key === undefined) throw new ConfigError('TLS_KEY_FILE', 'must be set with TLS_CERT_FILE (the private key of its certificate)')
  if (key !== undefined && cert === undefined) throw new ConfigError('TLS_CERT_FILE', 'must be set with TLS_KEY_FILE (the certificate of its private key)')
  // The external broker's trust bundle (BROKER_CA_FILE) takes the operator's CAs too, with or without listeners here.
  if (ca !== undefined && cert === undefined && optional(env, 'BROKER_CA_FILE') === undefined) {
    throw new ConfigError('TLS_CLIENT_CA_FILE', 'needs TLS_CERT_FILE and TLS_KEY_FILE (only the TLS listeners ask for client certificates), or BROKER_CA_FILE (the external broker\'s)')
  }
  return {
    TLS_CERT_FILE: cert,
    TLS_KEY_FILE: key,
    TLS_CLIENT_CA_FILE: ca,
    MQTTS_PORT: int(env, 'MQTTS_PORT', 8883, 0, 65535),
    HTTPS_PORT: int(env, 'HTTPS_PORT', 8443, 0, 65535)
  }
}

/** A plain listener switched off needs the TLS listeners, or its clients would have no port at all. */
export function checkOffSwitches (config: Pick<TlsConfig, 'TLS_CERT_FILE'> & { HTTP_PORT: PortOrOff, MQTT_PORT: PortOrOff }): void {
  if (config.TLS_CERT_FILE !== undefined) return
  for (const [variable, tls] of [['HTTP_PORT', 'HTTPS_PORT'], ['MQTT_PORT', 'MQTTS_PORT']] as const) {
    if (config[variable] === 'off') throw new ConfigError(variable, `off needs TLS_CERT_FILE and TLS_KEY_FILE (the ${tls} listener takes its place)`)
  }
}

/** Whether the service has TLS listeners (TLS_CERT_FILE and TLS_KEY_FILE, which tlsConfig holds together). */
export const tlsEnabled = (config: Pick<TlsConfig, 'TLS_CERT_FILE' | 'TLS_KEY_FILE'>): boolean =>
  config.TLS_CERT_FILE !== undefined && config.TLS_KEY_FILE !== undefined
