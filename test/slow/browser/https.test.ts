// The console over HTTPS in Chromium (docs/console.md, docs/security.md#tls): signed in on HTTPS_PORT through the
// service's own sign-in page, the fleet page kept live by the stream over wss on that same port, every page served
// over TLS 1.2 or 1.3 with the test CA's certificate (Chromium trusts its key alone, test/helpers/browser.ts); and the
// HTTP port's console still signing in beside it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Response } from 'playwright-core'
import type { SimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { CA_NAME, screenshot, signIn, SOON, startHarness, type Harness } from '../../helpers/browser.js'
import { CONSOLE_CLIENT_ID } from '../../../core/domain/console-client.js'

let h: Harness
let device: SimulatedDevice
beforeAll(async () => {
  h = await startHarness({ https: true })
  // Registered and connected, silent until the page is open: its first message is what the page must show live.
  device = await h.addDevice()
})
afterAll(async () => { await h?.close() })

/** The protocol and issuer Chromium reports for a response's connection. */
async function tlsOf (res: Response | null): Promise<{ url: string, protocol: string | undefined, issuer: string | undefined }> {
  const details = await res?.securityDetails()
  return { url: res?.url() ?? '', protocol: details?.protocol, issuer: details?.issuer }
}

describe('the console over HTTPS', { timeout: 60_000 }, () => {
  it('signs in on the HTTPS port, shows the fleet and a device\'s message live over wss, every page over TLS 1.2 or 1.3', async () => {
    const tab = await h.open()
    const { page } = tab
    const origin = new URL(h.stack.httpsUrl)
    expect(origin.protocol).toBe('https:')
    const documents: Array<Promise<Response | null>> = []
    page.on('request', (r) => { if (r.resourceType() === 'document') documents.push(r.response()) })
    const sockets: string[] = []
    page.on('websocket', (ws) => { sockets.push(ws.url()) })

    await signIn(tab, h.stack)
    const pages = await Promise.all((await Promise.all(documents)).map(tlsOf))
    // The console, the sign-in page, its form's answer and the console again with the code: all on the HTTPS port.
    expect(pages.map((p) => new URL(p.url).pathname)).toEqual(['/console/', '/api/oauth/authorize', '/api/oauth/authorize', '/console/'])
    for (const p of pages) {
      expect(new URL(p.url).origin, p.url).toBe(origin.origin)
      expect(p.protocol, p.url).toMatch(/^TLS 1\.[23]$/)
      expect(p.issuer, p.url).toBe(CA_NAME)
    }

    // The fleet page shows the device; its page lists its messages and adds the next one live.
    const name = device.identity.serialNumber
    await page.getByRole('table', { name: 'Systems' }).getByRole('rowheader', { name }).waitFor()
    await expect.poll(() => tab.subscribed(), SOON).toBeGreaterThan(0)
    const fleetSubscriptions = tab.subscribed()
    await screenshot(page, 'fleet-https')
    await page.getByRole('table', { name: 'Systems' }).getByRole('link', { name }).click()
    await page.getByRole('heading', { level: 1, name }).waitFor()
    const messages = page.getByRole('table', { name: 'Messages received from the device, most recent first' })
    await expect.poll(async () => await messages.textContent(), SOON).not.toContain('Loading messages')
    const shown = messages.getByRole('button', { name: /^Data of the message of / })
    const before = await shown.count()
    await expect.poll(() => tab.subscribed(), SOON).toBeGreaterThan(fleetSubscriptions)
    expect(sockets.map((u) => `${new URL(u).protocol}//${new URL(u).host}${new URL(u).pathname}`))
      .toEqual([`wss://${origin.host}/api/v1/stream`])

    // Sent over MQTT after the page opened: it reaches the page through the stream over wss, without a reload.
    const sent = await device.publish()
    await expect.poll(async () => await shown.count(), SOON).toBe(before + 1)
    const newest = messages.getByRole('row').nth(1)
    await expect.poll(async () => await newest.getByRole('cell').nth(2).textContent(), SOON).toBe(String(sent.length))
    await screenshot(page, 'system-https')
    expect(tab.errors).toEqual([])
  })

  it('still signs the console in on the HTTP port of the same service', async () => {
    // The sign-in page the console of the HTTP port is sent to, with its own http redirect URI.
    const q = new URLSearchParams({
      response_type: 'code', client_id: CONSOLE_CLIENT_ID, redirect_uri: `${h.stack.httpUrl}/console/`, state: 's', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256'
    })
    const res = await fetch(`${h.stack.httpUrl}/api/oauth/authorize?${q.toString()}`)
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('Sign in to the console')
  })
})
