// The SMS shoulder tap (docs/devices.md, "Connection request"): POST
// `{"to": <mobileNumber>, "text": <the protocol's shoulder-tap text>, "system": <uid>}` as JSON to SMS_GATEWAY_URL;
// a 2xx answer means sent. The URL is the operator's own configuration, not a user's input, so unlike callbacks
// (http-callback.ts) it may point to a private address (a gateway on the same network is the usual setup).
import type { ConnectionRequester } from '../../core/ports/devices.js'
import type { DeviceProtocol } from '../../core/domain/device-message.js'
import type { Logger } from '../../core/logger.js'

/**
 * What the SMS says, per protocol. No specification states a text: docs/protocols/m3da.md and its open question 4 say
 * how AirVantage woke M3DA devices is unknown (Mihini's SMS path looks for a "DA3" prefix, which carries a whole
 * envelope, not a wake-up). The device side (the simulator, a device's SMS handler) matches these texts.
 */
export const SHOULDER_TAP_TEXT: Readonly<Record<DeviceProtocol, string>> = {
  MQTT: 'FLEET CONNECT',
  REST: 'FLEET CONNECT',
  M3DA: 'M3DA WAKEUP',
  MSCI: 'FLEET CONNECT',
  SNMP: 'FLEET CONNECT',
  SPARKPLUG: 'FLEET CONNECT',
  // SWUpdate and RAUC poll on their own schedule and read no SMS: the text is there for a gateway's own handler.
  DDI: 'FLEET CONNECT',
  // LwM2M's own SMS binding carries a CoAP message (a Registration Update Trigger); until the service speaks it, a
  // queue-mode device's SMS handler is asked, like the others, to send an update (docs/protocols/lwm2m.md).
  LWM2M: 'FLEET CONNECT'
}

/** One try: the connection and the whole answer (a gateway that does not answer is a failed request). */
export const SMS_GATEWAY_TIMEOUT_MS = 5_000

export interface SmsGatewayOptions {
  /** SMS_GATEWAY_URL; absent: every request answers 'unavailable'. */
  url: string | undefined
  log: Logger
  timeoutMs?: number
}

/** fetch refuses a URL with credentials: they become a Basic header, and only the host is ever logged. */
function target (raw: string): { url: string, host: string, authorization: string | undefined } {
  const u = new URL(raw)
  const authorization = u.username === '' && u.password === ''
    ? undefined
    : 'Basic ' + Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')
  u.username = ''
  u.password = ''
  return { url: u.toString(), host: u.host, authorization }
}

export function createSmsGateway ({ url, log, timeoutMs = SMS_GATEWAY_TIMEOUT_MS }: SmsGatewayOptions): ConnectionRequester {
  const t = url === undefined ? undefined : target(url)
  return {
    async request ({ systemUid, mobileNumber, protocol }) {
      if (t === undefined) return 'unavailable'
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (t.authorization !== undefined) headers.authorization = t.authorization
      try {
        const res = await fetch(t.url, {
          method: 'POST',
          headers,
          body: JSON.stringify({ to: mobileNumber, text: SHOULDER_TAP_TEXT[protocol], system: systemUid }),
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs)
        })
        await res.arrayBuffer().catch(() => undefined) // read to the end so the connection can be reused
        if (res.status >= 200 && res.status < 300) return 'sent'
        log.warn({ systemUid, gateway: t.host, status: res.status }, 'SMS gateway refused the connection request')
        return 'failed'
      } catch (err) {
        // The cause's message only: an error object may carry the request, and with it the Basic credentials.
        const reason = err instanceof Error ? (err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : String((err.cause as Error | undefined)?.message ?? err.message)) : 'unknown'
        log.warn({ systemUid, gateway: t.host, reason }, 'SMS gateway not reached for the connection request')
        return 'failed'
      }
    }
  }
}
