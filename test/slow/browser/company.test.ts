// The company switcher and the administrators' pages in Chromium: a user of two companies switches the
// company the console acts in (docs/api.md#using-the-api, `company=<uid>` on each call) and sees that company's
// fleet and details; the operations, company and users pages open for an administrator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ALL_RIGHTS } from '../../../core/domain/rights.js'
import { screenshot, signIn, SOON, startHarness, type Harness } from '../../helpers/browser.js'
import { companyUid, seed } from '../../helpers/factories.js'
import { COMPANY_NAME } from '../../helpers/stack.js'
import { createSystem } from '../../helpers/systems.js'

const SECOND = 'Second Company'
const TWO = { email: 'two-companies@test.local', password: 'two-companies-pw' }

let h: Harness
beforeAll(async () => {
  h = await startHarness()
  await seed(h.stack, {
    companies: [{ name: SECOND }],
    profiles: [{ company: COMPANY_NAME, name: 'Operators', rights: [...ALL_RIGHTS] }, { company: SECOND, name: 'Operators', rights: [...ALL_RIGHTS] }],
    users: [{
      email: TWO.email,
      name: 'Dana Two',
      password: TWO.password,
      companies: [{ company: COMPANY_NAME, profile: 'Operators', administrator: true }, { company: SECOND, profile: 'Operators', administrator: true }]
    }]
  })
  const token = await h.stack.login(TWO.email, TWO.password)
  await createSystem(h.stack, { name: 'Home pump', labels: ['pumps'] }, { token })
  await createSystem(h.stack, { name: 'Second pump', labels: ['pumps'] }, { token, company: await companyUid(h.stack, SECOND) })
})
afterAll(async () => { await h?.close() })

const systemNames = async (page: Page): Promise<string[]> =>
  (await page.getByRole('table', { name: 'Systems' }).getByRole('rowheader').allTextContents()).map((s) => s.trim())

describe('the company switcher and the administrators\' pages', { timeout: 60_000 }, () => {
  it('switches the company the console acts in: its fleet and its details', async () => {
    const tab = await h.open()
    const { page } = tab
    await signIn(tab, h.stack, TWO)
    await expect.poll(async () => await systemNames(page), SOON).toEqual(['Home pump'])
    const switcher = page.getByRole('combobox', { name: 'Company' })
    expect(await switcher.locator('option').allTextContents()).toEqual([COMPANY_NAME, SECOND])

    await switcher.selectOption({ label: SECOND })
    await expect.poll(async () => await systemNames(page), SOON).toEqual(['Second pump'])
    expect(await page.getByRole('combobox', { name: 'Company' }).locator('option:checked').textContent()).toBe(SECOND)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Company' }).click()
    await page.getByRole('heading', { level: 1, name: SECOND }).waitFor()
    expect(tab.errors).toEqual([])
  })

  it('shows the operations, company and users pages to an administrator', async () => {
    const tab = await h.open()
    const { page } = tab
    await signIn(tab, h.stack)
    const label = await h.api.request('POST', '/api/v1/operations/systems/label', { criteria: { labels: ['pumps'] }, labels: { add: ['checked'] } })
    expect(label.status).toBe(200)

    const nav = page.getByRole('navigation', { name: 'Main' })
    await nav.getByRole('link', { name: 'Operations' }).click()
    await page.getByRole('heading', { level: 1, name: 'Operations' }).waitFor()
    await expect.poll(async () => await page.getByRole('main').getByRole('table').first().textContent(), SOON).toContain('Label')
    await screenshot(page, 'operations')

    await nav.getByRole('link', { name: 'Company' }).click()
    await page.getByRole('heading', { level: 1, name: COMPANY_NAME }).waitFor()
    await page.getByRole('heading', { level: 2, name: 'IP filters' }).waitFor()
    await screenshot(page, 'company')

    await nav.getByRole('link', { name: 'Users' }).click()
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor()
    await expect.poll(async () => await page.getByRole('main').textContent(), SOON).toContain(TWO.email)
    await screenshot(page, 'users')
    expect(tab.errors).toEqual([])
  })
})
