// What a simulated LwM2M client is told (simulator/README.md "LwM2M devices"; docs/protocols/lwm2m.md).
import type { InstalledApplications } from '../devices/installed.js'
import type { SoftwareOptions } from '../devices/software.js'
import type { Lwm2mVersion } from './lwm2m-requests.js'

export interface Lwm2mDeviceOptions {
  /** coap://host:port (the service's LWM2M_PORT, NoSec) or coaps://host:port (LWM2MS_PORT, DTLS with `psk`). */
  url: string
  /** The endpoint client name: the gateway serial number (or IMEI) of the system. */
  endpointName: string
  /** Default 1.1; 1.0 registers `lwm2m=1.0` and speaks TLV (and LwM2M JSON) only. */
  version?: Lwm2mVersion
  /** Registration lifetime (s, default 300): an update goes at three quarters of it. */
  lifetime?: number
  /** Queue mode: reachable only for `queueAwakeMs` after each registration or update (and each request then). */
  queue?: boolean
  /** Default 5000 ms. */
  queueAwakeMs?: number
  /** DTLS PSK; the identity defaults to the endpoint name. Needs a coaps:// URL. */
  psk?: { identity?: string, keyHex: string }
  /** How long a reboot keeps the device off (ms, default 1000). */
  rebootMs?: number
  /** How long applying a firmware lasts (State 3 Updating; ms, default 200). */
  firmwareUpdateMs?: number
  /** The firmware version it starts with (3/0/3; default 1.0.0). */
  firmwareVersion?: string
  /** Its downloads and whether it fails its installs (devices/software.ts). */
  software?: SoftwareOptions
  /** The applications it has installed (Object 9; default: none, its own list). */
  applications?: InstalledApplications
  /** Execute 3/0/4 and a successful firmware update restart the device: its model counts the restart. */
  onReboot?: () => void
  /** Execute 3/0/5. */
  onFactoryReset?: () => void
  /** CoAP ACK_TIMEOUT (ms, default 2000); tests shorten it. */
  ackTimeoutMs?: number
}

/** Host, port and whether DTLS: `coap://h:5683` or `coaps://h:5684`. @throws Error for another scheme */
export function parseLwm2mUrl (url: string): { host: string, port: number, secure: boolean } {
  const u = new URL(url)
  if (u.protocol !== 'coap:' && u.protocol !== 'coaps:') throw new Error(`an LwM2M URL is coap://host:port or coaps://host:port, got ${url}`)
  const secure = u.protocol === 'coaps:'
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1')
  return { host: host === 'localhost' ? '127.0.0.1' : host, port: u.port === '' ? (secure ? 5684 : 5683) : Number(u.port), secure }
}

/** A PSK in hex, as `communication.lwm2m.pskSecretHex` holds it. @throws Error when it is not 1–64 bytes of hex */
export function pskKey (hex: string): Buffer {
  if (!/^([0-9a-fA-F]{2}){1,64}$/.test(hex)) throw new Error('an LwM2M PSK is 1 to 64 bytes in hex')
  return Buffer.from(hex, 'hex')
}

/** What a fleet's LwM2M devices share (`fleet simulate --protocol lwm2m`, simulator/cli.ts). */
export interface Lwm2mFleetOptions {
  /** Queue mode (`--lwm2m-queue`). */
  queue?: boolean
  /** DTLS with a PSK per device, stored on its system as `communication.lwm2m.pskSecretHex` (`--lwm2m-psk`). */
  psk?: boolean
  /** Registration lifetime (s, `--lwm2m-lifetime`). */
  lifetime?: number
  version?: Lwm2mVersion
}
