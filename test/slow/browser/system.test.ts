// The system page in Chromium: a system whose simulated MQTT device is sending, its chart drawn from the
// API and then updated live from the stream (a point sent after the page opened appears), an API error (an
// unknown system) shown as a sentence rather than a code, and a simulated LwM2M device over DTLS as a viewer sees
// it (docs/protocols/lwm2m.md): its communication, PSK identity and lwm2m.* data, never its key, and its row on the
// fleet page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ALL_RIGHTS } from '../../../core/domain/rights.js'
import { deviceIdentity } from '../../../simulator/devices/identity.js'
import type { SimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { addDevice } from '../../../simulator/fleet.js'
import { screenshot, signIn, SOON, startHarness, type Harness } from '../../helpers/browser.js'
import { seed } from '../../helpers/factories.js'
import { COMPANY_NAME } from '../../helpers/stack.js'

let h: Harness
let device: SimulatedDevice
let lwm2m: SimulatedDevice
/** Sees every system, without entities.systems.edit: the API gives it no device secret (docs/api.md#systems). */
const VIEWER = { email: 'viewer@test.local', password: 'viewer-password' }
const SENT_BEFORE = 11
const CHARTED = 'machine.temperature'
const SENT_AT: number[] = []
beforeAll(async () => {
  h = await startHarness()
  device = await h.addDevice()
  // An hour of messages, five minutes apart, before the page opens: the chart draws them from the API.
  const now = Date.now()
  for (let i = SENT_BEFORE; i > 0; i--) {
    SENT_AT.push(now - i * 5 * 60_000)
    await device.publish(now - i * 5 * 60_000)
  }
  const communication = [{ type: 'LWM2M', commIdType: 'SERIAL', parameters: { security: 'psk' } }]
  const app = await h.api.request('POST', '/api/v1/applications', { name: 'LwM2M tracker', revision: '1', type: `test.lwm2m.${h.run}`, category: 'FIRMWARE', communication })
  expect(app.status).toBe(200)
  lwm2m = await addDevice(h.api, deviceIdentity(h.run, 900), { protocol: 'lwm2m', lwm2mUrl: `coaps://127.0.0.1:${h.stack.ports.lwm2ms ?? 0}`, lwm2m: { psk: true } },
    { labels: [`lwm2m-${h.run}`], applicationUid: (app.json as { uid: string }).uid })
  await seed(h.stack, {
    profiles: [{ company: COMPANY_NAME, name: 'Viewers', rights: ALL_RIGHTS.filter((r) => r.includes('.view')) }],
    users: [{ email: VIEWER.email, name: 'Vic Viewer', password: VIEWER.password, companies: [{ company: COMPANY_NAME, profile: 'Viewers', administrator: false }] }]
  })
})
afterAll(async () => {
  await lwm2m?.close()
  await h?.close()
})

/** The chart's point count: lib/chart.ts keeps it in data-points of the figure (uPlot draws on a canvas). */
const chartPoints = async (page: Page): Promise<number> =>
  Number(await page.getByRole('img', { name: /^Chart of / }).getAttribute('data-points'))

describe('the system page', { timeout: 60_000 }, () => {
  it('draws every bucket of an aggregated chart it counts, the first hour\'s too', async () => {
    const tab = await h.open()
    const { page } = tab
    await signIn(tab, h.stack, undefined, `#/systems/${device.systemUid}?chart=${CHARTED}`)
    await page.getByRole('heading', { level: 1, name: device.identity.serialNumber }).waitFor()
    await page.getByLabel('Time range').selectOption('hour')
    await page.getByLabel('Values').selectOption('aggregated')
    // Hourly buckets start at the full hour: the sent points' hours, the first one before the range's start.
    const hours = new Set(SENT_AT.map((t) => Math.floor(t / 3_600_000)))
    await expect.poll(async () => await chartPoints(page), SOON).toBe(hours.size)
    const figure = page.getByRole('img', { name: /^Chart of / })
    expect(await figure.getAttribute('aria-label')).toContain(`${hours.size} point${hours.size === 1 ? '' : 's'}`)
    const from = Number(await figure.getAttribute('data-from'))
    expect(from).toBeLessThanOrEqual(Math.min(...hours) * 3_600_000)
    await screenshot(page, 'system-aggregated')
    expect(tab.errors).toEqual([])
  })

  it('charts a data id of a sending device and adds a point sent after the page opened', async () => {
    const tab = await h.open()
    const { page } = tab
    await signIn(tab, h.stack, undefined, `#/systems/${device.systemUid}?chart=${CHARTED}`)
    await page.getByRole('heading', { level: 1, name: device.identity.serialNumber }).waitFor()
    await page.getByLabel('Time range').selectOption('hour')
    await expect.poll(async () => await chartPoints(page), SOON).toBe(SENT_BEFORE)
    // uPlot drew: the canvas is there, with a size.
    const canvas = await page.locator('.time-chart canvas').first().boundingBox()
    expect(canvas?.width).toBeGreaterThan(100)

    // Live: the device's next message reaches the open page through the stream, without a reload.
    await expect.poll(() => tab.subscribed(), SOON).toBeGreaterThan(0)
    const sent = await device.publish()
    const value = sent.find((p) => p.dataId === CHARTED)?.value as number
    await expect.poll(async () => await chartPoints(page), SOON).toBe(SENT_BEFORE + 1)
    const label = await page.getByRole('img', { name: /^Chart of / }).getAttribute('aria-label')
    expect(label).toContain(`last value ${Math.round(value * 10_000) / 10_000} `)
    await screenshot(page, 'system')
    expect(tab.errors).toEqual([])
  })

  it('shows the API\'s refusal of an unknown system as a sentence', async () => {
    const tab = await h.open()
    const { page } = tab
    await signIn(tab, h.stack, undefined, '#/systems/0123456789abcdef0123456789abcdef')
    await expect.poll(async () => await page.getByRole('alert').allTextContents(), SOON).toContainEqual(expect.stringContaining('This system does not exist in the company.'))
    expect((await page.getByRole('alert').allTextContents()).join(' ')).not.toContain('system.unknown')
    await screenshot(page, 'system-unknown')
    expect(tab.errors).toEqual([])
  })

  it('shows an LwM2M system to a viewer: its communication and lwm2m data, never its key, and its fleet row', async () => {
    const tab = await h.open()
    const { page } = tab
    const serial = lwm2m.identity.serialNumber
    await signIn(tab, h.stack, VIEWER, `#/systems/${lwm2m.systemUid}`)
    await page.getByRole('heading', { level: 1, name: serial }).waitFor()
    const communication = page.getByRole('region', { name: 'Communication' })
    await expect.poll(async () => await communication.innerText(), SOON).toContain('LwM2M endpoint name')
    const text = await communication.innerText()
    for (const shown of ['LWM2M', `${serial} (serial number)`, `${serial} (the endpoint name)`, 'DTLS with a pre-shared key', 'Not shown']) expect(text).toContain(shown)
    // The observed objects' values (the default /3/0, /4/0, /6/0), from the device's LWM2M messages.
    await expect.poll(async () => await page.locator('tr[data-id="lwm2m.4.0.2"]').count(), SOON).toBe(1)
    expect(await page.getByRole('table', { name: /^Messages received/ }).innerText()).toContain('LWM2M')
    await expect.poll(async () => await page.locator('header.page-header').innerText(), SOON).toMatch(/OK[\s\S]*Last communication/)
    expect(await page.content()).not.toContain(lwm2m.identity.lwm2mPskHex)
    await screenshot(page, 'system-lwm2m')

    await page.goto(`${tab.origin}/console/#/fleet?labels=lwm2m-${h.run}`)
    const row = page.getByRole('table', { name: 'Systems' }).getByRole('row').filter({ has: page.getByRole('rowheader', { name: serial }) })
    await expect.poll(async () => await row.textContent(), SOON).toContain('OK')
    expect(tab.errors).toEqual([])
  })
})
