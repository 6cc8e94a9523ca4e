// The fleet page in Chromium: the systems of simulated MQTT devices in the table, filtered by label (the
// view kept in the address), and a reboot run from the table on one system, followed on the operation's page until
// FINISHED once the simulated device has rebooted and acknowledged (docs/devices.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Locator, Page } from 'playwright-core'
import type { SimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { screenshot, signIn, SOON, startHarness, type Harness } from '../../helpers/browser.js'
import { countOperations, getOperation } from '../../helpers/operations.js'

/** Hamburg, Paris, Lyon, Milan, Madrid. */
const CITIES: Array<[number, number]> = [[53.55, 9.99], [48.86, 2.35], [45.76, 4.84], [45.46, 9.19], [40.42, -3.7]]

let h: Harness
const north: SimulatedDevice[] = []
const south: SimulatedDevice[] = []
beforeAll(async () => {
  h = await startHarness()
  for (let i = 0; i < 3; i++) north.push(await h.addDevice(['north', 'pumps']))
  for (let i = 0; i < 2; i++) south.push(await h.addDevice(['south', 'pumps']))
  // Each sends once (comm status OK), then its position in a city of its own so the map shows a spread fleet; a
  // system without a device stays UNDEFINED.
  const devices = [...north, ...south]
  for (const [i, d] of devices.entries()) {
    await d.publish()
    const [lat, lon] = CITIES[i] ?? [0, 0]
    const ts = Date.now()
    await d.transport.sendData([{ dataId: '_LATITUDE', ts, value: lat }, { dataId: '_LONGITUDE', ts, value: lon }])
  }
  const res = await h.api.request('POST', '/api/v1/systems', { name: 'Spare pump (not installed)', labels: ['spare'] })
  expect(res.status).toBe(200)
})
afterAll(async () => { await h?.close() })

const table = (page: Page): Locator => page.getByRole('table', { name: 'Systems' })
/** The names of the table's rows (row headers link to the systems). */
const names = async (page: Page): Promise<string[]> => (await table(page).getByRole('rowheader').allTextContents()).map((s) => s.trim()).sort()
const serials = (devices: SimulatedDevice[]): string[] => devices.map((d) => d.identity.serialNumber).sort()

describe('the fleet page', { timeout: 60_000 }, () => {
  it('lists the systems with their comm status and filters them by label, the view kept in the address', async () => {
    const tab = await h.open()
    const { page } = tab
    await signIn(tab, h.stack)
    await expect.poll(async () => await names(page), SOON).toEqual([...serials([...north, ...south]), 'Spare pump (not installed)'].sort())
    const row = table(page).getByRole('row').filter({ has: page.getByRole('rowheader', { name: north[0]?.identity.serialNumber }) })
    await expect.poll(async () => await row.textContent(), SOON).toContain('OK')
    await screenshot(page, 'fleet')

    const filters = page.getByRole('search', { name: 'Filter systems' })
    await filters.getByLabel('Labels').fill('north')
    await filters.getByRole('button', { name: 'Apply filters' }).click()
    await expect.poll(async () => await names(page), SOON).toEqual(serials(north))
    expect(new URL(page.url()).hash).toBe('#/fleet?labels=north')
    // The address alone gives the same view (a copied link, a reload).
    await page.reload()
    await expect.poll(async () => await names(page), SOON).toEqual(serials(north))
    await screenshot(page, 'fleet-filtered')
    expect(tab.errors).toEqual([])
  })

  it.each([[1440, 900], [1280, 860], [1920, 1080]])('shows every default column without scrolling at %i px', async (width, height) => {
    const tab = await h.open({ width, height })
    const { page } = tab
    await signIn(tab, h.stack)
    await expect.poll(async () => (await names(page)).length, SOON).toBe(6)
    const wrap = page.locator('.table-wrap').filter({ has: table(page) })
    const { scroll, client } = await wrap.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }))
    expect(scroll, `the table needs ${scroll} px and has ${client}`).toBeLessThanOrEqual(client)
    await screenshot(page, `fleet-${width}`)
    expect(tab.errors).toEqual([])
  })

  it('reboots a system from the table and follows the operation until FINISHED', async () => {
    const tab = await h.open()
    const { page } = tab
    const device = south[0] as SimulatedDevice
    const name = device.identity.serialNumber
    await signIn(tab, h.stack, undefined, '#/fleet?labels=south')
    await expect.poll(async () => await names(page), SOON).toEqual(serials(south))

    await page.getByRole('checkbox', { name: `Select ${name}` }).check()
    const reboot = page.getByRole('toolbar', { name: 'Actions on the selected systems' }).getByRole('button', { name: 'Reboot…' })
    const dialog = page.getByRole('dialog', { name: 'Reboot 1 system' })
    // Keyboard: Escape closes the dialog without rebooting anything.
    await reboot.click()
    await dialog.waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    await reboot.click()
    await dialog.getByRole('button', { name: 'Reboot', exact: true }).click()
    await page.waitForURL(/#\/operations\/[0-9a-f]{32}$/)
    const uid = new URL(page.url()).hash.replace('#/operations/', '')

    // The simulated device reboots and acknowledges; the page follows the operation live to its end.
    const main = page.getByRole('main')
    await main.getByRole('heading', { level: 1, name: 'Reboot' }).waitFor()
    const bar = main.getByRole('progressbar', { name: 'Progress' })
    await expect.poll(async () => await bar.getAttribute('aria-valuetext'), { ...SOON, timeout: 30_000 }).toBe('1 of 1 tasks ended')
    await expect.poll(async () => await main.getByRole('definition').allTextContents(), SOON).toContain('Finished')
    expect([await bar.getAttribute('value'), await bar.getAttribute('max')]).toEqual(['1', '1']) // full
    await expect.poll(async () => await main.textContent(), SOON).toContain('Succeeded 1')
    // The task list follows too: the system's task succeeded.
    const task = main.getByRole('row').filter({ has: page.getByRole('link', { name }) })
    await expect.poll(async () => await task.textContent(), SOON).toContain('Succeeded')
    await screenshot(page, 'operation')
    const op = await getOperation(h.stack, uid)
    expect(op).toMatchObject({ operationType: 'SYSTEM_REBOOT', state: 'FINISHED', total: 1 })
    expect(device.model.numberOfResets).toBe(1)
    expect(await countOperations(h.stack)).toBe(1) // the dialog closed with Escape created none
    expect(tab.errors).toEqual([])
  })

  it('offers the templates and the declared settings, reboots only when asked, and shows why a setting was refused', async () => {
    const tab = await h.open()
    const { page } = tab
    const name = north[1]?.identity.serialNumber ?? ''
    await signIn(tab, h.stack, undefined, '#/fleet?labels=north')
    await expect.poll(async () => await names(page), SOON).toEqual(serials(north))
    await page.getByRole('checkbox', { name: `Select ${name}` }).check()
    await page.getByRole('toolbar', { name: 'Actions on the selected systems' }).getByRole('button', { name: 'Apply settings…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Apply settings to 1 system' })
    await dialog.waitFor()
    await expect.poll(async () => await dialog.getByLabel('Template').locator('option').allTextContents(), SOON).toContain('Low power')
    await expect.poll(async () => await dialog.textContent(), SOON).toContain('Declared settings: ')
    expect(await dialog.textContent()).toContain('config.reportPeriodS')
    expect(await dialog.getByRole('checkbox', { name: 'Reboot after the settings are applied' }).isChecked()).toBe(false)
    // A declared key brings its type; text sent for an integer setting is refused for that system, in words.
    await dialog.getByLabel('Setting 1 key').fill('config.reportPeriodS')
    await page.keyboard.press('Tab')
    expect(await dialog.getByLabel('Setting 1 type').inputValue()).toBe('number')
    await dialog.getByLabel('Setting 1 value').fill('fast')
    await dialog.getByLabel('Setting 1 type').selectOption('string')
    await screenshot(page, 'fleet-apply-settings')
    await dialog.getByRole('button', { name: 'Apply settings', exact: true }).click()
    await page.waitForURL(/#\/operations\/[0-9a-f]{32}$/)
    const task = page.getByRole('main').getByRole('row').filter({ has: page.getByRole('link', { name }) })
    await expect.poll(async () => await task.textContent(), SOON)
      .toContain('A setting is not declared by the system\'s applications, or with another type: config.reportPeriodS declared int given string')
    expect(await task.textContent()).not.toContain('template')
    expect(tab.errors).toEqual([])
  })
})
