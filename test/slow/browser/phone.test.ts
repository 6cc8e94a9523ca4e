// The console on a phone's width ("readable on a phone's width"): at 360 px the menu folds behind a
// button, and no page is wider than the screen (a wide table scrolls sideways inside its own box, not the page).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import type { SimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { PHONE, screenshot, signIn, SOON, startHarness, type ConsoleTab, type Harness } from '../../helpers/browser.js'

let h: Harness
let device: SimulatedDevice
let operation: string
let tab: ConsoleTab
beforeAll(async () => {
  h = await startHarness()
  device = await h.addDevice()
  const now = Date.now()
  for (let i = 6; i >= 0; i--) await device.publish(now - i * 5 * 60_000)
  const res = await h.api.request('POST', '/api/v1/operations/systems/label', { criteria: { uids: [device.systemUid] }, labels: { add: ['phone'] } })
  expect(res.status).toBe(200)
  operation = (res.json as { operation: string }).operation
  tab = await h.open(PHONE)
  await signIn(tab, h.stack)
})
afterAll(async () => { await h?.close() })

/** How far the page itself scrolls sideways (0 when nothing is wider than the screen). */
const overflow = async (page: Page): Promise<number> =>
  Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'))

const pages: Array<[string, () => string, RegExp]> = [
  ['fleet', () => '#/fleet', /^Fleet$/],
  ['system', () => `#/systems/${device.systemUid}`, /^SIM/],
  ['operations', () => '#/operations', /^Operations$/],
  ['operation', () => `#/operations/${operation}`, /^Label$/],
  ['company', () => '#/company', /^Test Company$/],
  ['users', () => '#/users', /^Users$/],
  ['applications', () => '#/applications', /^Applications$/],
  ['alerts', () => '#/alerts', /^Alerts$/]
]

describe('the console at 360 px wide', { timeout: 60_000 }, () => {
  it.each(pages)('the %s page fits the width', async (name, route, heading) => {
    const { page } = tab
    await page.goto(`${h.stack.httpUrl}/console/${route()}`)
    await page.getByRole('heading', { level: 1, name: heading }).waitFor()
    // Settled: nothing is loading any more (tables and charts fill in after the heading).
    await expect.poll(async () => await page.locator('[aria-busy="true"]').count(), SOON).toBe(0)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await screenshot(page, `${name}-360`)
  })

  it('folds the menu behind a button that opens and closes it', async () => {
    const { page } = tab
    await page.goto(`${h.stack.httpUrl}/console/#/fleet`)
    const toggle = page.getByRole('button', { name: 'Menu' })
    const operations = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Operations' })
    await toggle.waitFor()
    expect(await operations.isVisible()).toBe(false)
    await toggle.click()
    expect(await toggle.getAttribute('aria-expanded')).toBe('true')
    await operations.waitFor({ state: 'visible' })
    await screenshot(page, 'menu-360')
    await operations.click()
    await page.getByRole('heading', { level: 1, name: 'Operations' }).waitFor()
    expect(await operations.isVisible()).toBe(false)
  })

  it('scrolls the fleet table sideways inside its box', async () => {
    const { page } = tab
    await page.goto(`${h.stack.httpUrl}/console/#/fleet`)
    const table = page.getByRole('table', { name: 'Systems' })
    await table.getByRole('rowheader').first().waitFor()
    const box = await table.boundingBox()
    expect(box?.width).toBeGreaterThan(PHONE.width) // the table is wider than the phone…
    expect(await overflow(page)).toBeLessThanOrEqual(0) // …and the page is not
    expect(tab.errors).toEqual([])
  })
})
