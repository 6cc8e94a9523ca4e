// Gateway identifier formats (docs/api.md set G). Each function answers whether the value is well formed.

/** IMEI: 15 digits whose last is the Luhn check digit of the first 14 (3GPP TS 23.003 §6.2.1). */
export function validImei (imei: string): boolean {
  if (!/^\d{15}$/.test(imei)) return false
  let sum = 0
  for (let i = 0; i < 14; i++) {
    let d = imei.charCodeAt(i) - 48
    if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9 }
    sum += d
  }
  return (10 - (sum % 10)) % 10 === imei.charCodeAt(14) - 48
}

/** ESN: 8 hexadecimal digits, or its 11-digit decimal form (3 digits manufacturer code + 8 digits serial). */
export function validEsn (esn: string): boolean {
  if (/^[0-9a-fA-F]{8}$/.test(esn)) return true
  return /^\d{11}$/.test(esn) && Number(esn.slice(0, 3)) <= 255 && Number(esn.slice(3)) <= 16_777_215
}

/** MEID: 14 hexadecimal digits, optionally followed by a check digit; or the 18-digit decimal form. */
export function validMeid (meid: string): boolean {
  return /^[0-9a-fA-F]{14,15}$/.test(meid) || /^\d{18}$/.test(meid)
}

/** MAC address: six hexadecimal pairs separated by ':' or '-' (one separator kind), or 12 hex digits. */
export function validMac (mac: string): boolean {
  return /^[0-9a-fA-F]{2}([:-])(?:[0-9a-fA-F]{2}\1){4}[0-9a-fA-F]{2}$/.test(mac) || /^[0-9a-fA-F]{12}$/.test(mac)
}

/** Computes the Luhn check digit of 14 IMEI digits (used by the simulator to make valid IMEIs). */
export function imeiCheckDigit (first14: string): string {
  let sum = 0
  for (let i = 0; i < 14; i++) {
    let d = first14.charCodeAt(i) - 48
    if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9 }
    sum += d
  }
  return String((10 - (sum % 10)) % 10)
}
