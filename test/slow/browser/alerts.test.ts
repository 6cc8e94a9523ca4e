// The Alerts page and the alert badges in Chromium (docs/console.md): a rule created from the form (after a data id
// the service refuses, pointed at in the dialog), listed with its condition in words, turned off and on; an alert a
// simulated device's MQTT message raised, counted on the fleet page's badge and the system page's, listed on the
// Alerts page with its values, and acknowledged there, after which it is history and no badge counts it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import type { SimulatedDevice } from '../../../simulator/devices/simulated-device.js'
import { screenshot, signIn, SOON, startHarness, type Harness } from '../../helpers/browser.js'
import { ADMIN_EMAIL } from '../../helpers/stack.js'

let h: Harness
let device: SimulatedDevice
beforeAll(async () => {
  h = await startHarness()
  device = await h.addDevice()
})
afterAll(async () => { await h?.close() })

interface Rule { uid: string, name: string, active: boolean }

const rules = async (): Promise<Rule[]> => {
  const res = await h.api.request('GET', '/api/v2/alertrules')
  expect(res.status).toBe(200)
  return res.json as Rule[]
}

const rowOf = (page: Page, table: string, text: string) => page.getByRole('table', { name: table }).getByRole('row').filter({ hasText: text })

describe('the Alerts page and the alert badges', { timeout: 60_000 }, () => {
  it('creates a rule from the form, lists it and turns it off and on', async () => {
    const tab = await h.open()
    const { page } = tab
    await signIn(tab, h.stack)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts' }).click()
    await page.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor()
    await page.getByText('No rule yet').waitFor()

    await page.getByRole('button', { name: 'New rule' }).click()
    const dialog = page.getByRole('dialog', { name: 'New alert rule' })
    await dialog.getByLabel('Name', { exact: true }).fill('Engine too hot')
    await dialog.getByLabel('Data id').fill('engine temp')
    await dialog.getByLabel('Operator').selectOption('GT')
    await dialog.getByLabel('Value').fill('90')
    await dialog.getByLabel('Message').fill('The engine is over 90 °C')
    await dialog.getByRole('button', { name: 'Create rule' }).click()
    // A data id with a space is refused: the sentence names the field, and the form points at its own.
    await expect.poll(async () => await dialog.getByRole('alert').textContent(), SOON)
      .toContain('The alert rule is not valid: conditions[0].operands[0].attributeId.name')
    expect(await dialog.getByLabel('Data id').getAttribute('aria-invalid')).toBe('true')
    expect(await rules()).toEqual([])

    await dialog.getByLabel('Data id').fill('engine.temp')
    await dialog.getByRole('button', { name: 'Create rule' }).click()
    await dialog.waitFor({ state: 'detached' })
    const row = rowOf(page, 'Alert rules', 'Engine too hot')
    await expect.poll(async () => await row.textContent(), SOON).toContain('engine.temp > 90')
    expect(await row.textContent()).toContain('Active')
    const [rule] = await rules()
    expect(rule).toMatchObject({ name: 'Engine too hot', active: true, message: 'The engine is over 90 °C', stateful: true })

    await page.getByRole('button', { name: 'Deactivate Engine too hot', exact: true }).click()
    await page.getByRole('button', { name: 'Activate Engine too hot', exact: true }).waitFor()
    expect(await row.textContent()).toContain('Inactive')
    expect((await rules())[0]).toMatchObject({ uid: rule?.uid, active: false, message: 'The engine is over 90 °C' })
    await screenshot(page, 'alerts-rules')

    await page.getByRole('button', { name: 'Activate Engine too hot', exact: true }).click()
    await page.getByRole('button', { name: 'Deactivate Engine too hot', exact: true }).waitFor()
    expect((await rules())[0]?.active).toBe(true)
    expect(tab.errors).toEqual([])
  })

  it('counts an alert a device raised on the system page as it comes and on the fleet page, and acknowledges it on the Alerts page', async () => {
    // A rule any temperature breaks, and the device's next message, which raises the alert in the ingest commit
    // (decision 0032) while the system's page is open: its badge and card follow without a reload.
    const created = await h.api.request('POST', '/api/v2/alertrules', {
      name: 'Pump overheating', conditions: [{ operator: 'GT', operands: [{ attributeId: { name: 'DATA.machine.temperature' } }, { valueNum: -273 }] }]
    })
    expect(created.status).toBe(200)
    const system = device.identity.serialNumber
    const tab = await h.open()
    const { page } = tab
    await signIn(tab, h.stack, undefined, `#/systems/${device.systemUid}`)
    await page.getByRole('heading', { level: 1, name: system }).waitFor()
    await page.getByRole('link', { name: 'No open alert' }).waitFor()
    await expect.poll(() => tab.subscribed(), SOON).toBeGreaterThan(0)

    const sent = await device.publish()
    const temperature = sent.find((p) => p.dataId === 'machine.temperature')?.value
    expect(typeof temperature).toBe('number')
    const values = `machine.temperature = ${String(temperature)}`
    const raised = await h.api.request('GET', `/api/v2/alerts?ruleId=${(created.json as Rule).uid}`)
    const [alert] = raised.json as Array<{ uid: string }>
    expect(alert).toBeDefined()
    await page.getByRole('link', { name: '1 open alert' }).waitFor({ timeout: SOON.timeout })
    await expect.poll(async () => await rowOf(page, 'Open alerts', 'Pump overheating').textContent(), SOON).toContain(values)
    await screenshot(page, 'system-alerts')

    await page.goto(`${tab.origin}/console/#/fleet`)
    await page.getByRole('heading', { level: 1, name: 'Fleet' }).waitFor()
    await page.getByRole('link', { name: '1 open alert' }).click()
    await page.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor()
    const open = rowOf(page, 'Open alerts', 'Pump overheating')
    await expect.poll(async () => await open.textContent(), SOON).toContain(values)
    expect(await open.getByRole('link', { name: system }).getAttribute('href')).toBe(`#/systems/${device.systemUid}`)
    await screenshot(page, 'alerts')

    await open.getByRole('button', { name: `Acknowledge Pump overheating on ${system}` }).click()
    await page.getByText('No open alert.').waitFor()
    const past = rowOf(page, 'Alert history', 'Pump overheating')
    await expect.poll(async () => await past.textContent(), SOON).toContain('Open, acknowledged')
    expect(await past.textContent()).toContain(ADMIN_EMAIL)
    const read = await h.api.request('GET', `/api/v2/alerts?alertId=${alert?.uid}`)
    expect(read.json).toMatchObject([{ uid: alert?.uid, acknowledged: true, state: 'OPEN' }])

    await page.goto(`${tab.origin}/console/#/fleet`)
    await page.getByRole('link', { name: 'No open alert' }).waitFor()
    expect(tab.errors).toEqual([])
  })
})
