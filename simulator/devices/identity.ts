// Who a simulated device is: gateway serial number, IMEI, SIM ICCID and its protocol passwords. The simulator
// imports only protocols/ and itself (docs/architecture.md#layout), so the Luhn check digit is computed here.
import { randomBytes } from 'node:crypto'

/** Luhn check digit of a string of digits (IMEI: 3GPP TS 23.003 §6.2.1; ICCID: ITU-T E.118). */
export function luhnDigit (digits: string): string {
  let sum = 0
  // Double every second digit counting from the right of the payload (the check digit goes after it).
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 0) { d *= 2; if (d > 9) d -= 9 }
    sum += d
  }
  return String((10 - (sum % 10)) % 10)
}

export interface DeviceIdentity {
  /** Gateway serial number: the MQTT / REST username (docs/devices.md). */
  serialNumber: string
  imei: string
  /** SIM ICCID: 89 (telecom) + 33 (country) + issuer and serial digits + Luhn digit, 20 digits. */
  iccid: string
  /** The SIM's MSISDN (E.164): the service's SMS shoulder tap is sent to it (docs/devices.md). */
  mobileNumber: string
  mqttPassword: string
  restPassword: string
  /**
   * The M3DA password (docs/protocols/m3da.md: ASCII without `,` or `;`), or the registration password of a device that
   * auto-registers (§2.8.6): the system is then created with it as `communication.m3da.registrationPassword`.
   */
  m3daPassword: string
  /** The LwM2M DTLS pre-shared key in hex (`communication.lwm2m.pskSecretHex`); identities made elsewhere may lack it. */
  lwm2mPskHex?: string
}

/**
 * A fresh identity. `run` keeps two simulator runs against the same service apart (identifiers are unique per
 * service); `n` numbers the devices of one run.
 */
export function deviceIdentity (run: string, n: number): DeviceIdentity {
  const tag = run.toUpperCase()
  const digits = (parseInt(run.slice(0, 6), 36) % 1_000_000).toString().padStart(6, '0')
  const imei14 = `35${digits}${String(n % 1_000_000).padStart(6, '0')}`
  const iccid19 = `8933${digits}${String(n % 1_000_000_000).padStart(9, '0')}`
  return {
    serialNumber: `SIM${tag}${String(n).padStart(5, '0')}`,
    imei: imei14 + luhnDigit(imei14),
    iccid: iccid19 + luhnDigit(iccid19),
    // +33 7 (a French mobile range), the run's digits and the device number: 15 digits, E.164's longest.
    mobileNumber: `+337${digits}${String(n % 1_000_000).padStart(6, '0')}`,
    mqttPassword: randomBytes(12).toString('base64url'),
    restPassword: randomBytes(12).toString('base64url'),
    m3daPassword: randomBytes(12).toString('base64url'),
    lwm2mPskHex: randomBytes(16).toString('hex')
  }
}

/** A short random run tag (letters and digits). */
export function newRunTag (): string {
  return randomBytes(6).readUIntBE(0, 6).toString(36).slice(0, 6).padStart(6, '0')
}
