// The system page in Chromium: a system whose simulated MQTT device is sending, its chart drawn from the
// API and then updated live from the stream (a point sent after the page opened appears), and an API error (an
// unknown system) shown as a sentence rather than a code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import type { SimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { screenshot, signIn, SOON, startHarness, type Harness } from '../../helpers/browser.js'

let h: Harness
let device: SimulatedDevice
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
})
afterAll(async () => { await h?.close() })

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
})
