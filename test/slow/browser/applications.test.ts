// The applications page and installs in Chromium (docs/console.md): a ZIP built with yazl released through the page
// (a package without a model refused in words first), its binaries with their digests, Publish and Delete; then an
// install with waves started from the fleet's bulk actions, its operation page showing the open wave, paused and
// resumed, and the application it installs refused deletion in words while the operation runs; and a rollout that
// stopped by itself, with why and each task's reason in words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { screenshot, signIn, SOON, startHarness, type Harness } from '../../helpers/browser.js'
import { createSystems, getOperation } from '../../helpers/operations.js'
import { applicationsOfType, binaryBytes, finished, greenhousePackage, md5, release, sha256, zipOf } from '../../int/packages/release-helpers.js'

let h: Harness
beforeAll(async () => { h = await startHarness() })
afterAll(async () => { await h?.close() })

/** The text of a definition of the page's details list (`<dt>term</dt><dd>…</dd>`). */
async function definition (page: Page, term: string): Promise<string> {
  const dd = page.getByRole('main').locator('dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]')
  return (await dd.count()) === 0 ? '' : (await dd.textContent()) ?? ''
}

describe('the applications page', { timeout: 90_000 }, () => {
  it('releases a ZIP, shows its binaries, publishes it and deletes it; a package without a model fails in words', async () => {
    const tab = await h.open()
    const { page } = tab
    await signIn(tab, h.stack, undefined, '#/applications')
    await page.getByRole('heading', { level: 1, name: 'Applications' }).waitFor()
    const file = page.getByLabel('Package (ZIP)')
    const releaseButton = page.getByRole('button', { name: 'Release', exact: true })

    await file.setInputFiles({ name: 'empty.zip', mimeType: 'application/zip', buffer: await zipOf([{ name: 'readme.txt', data: 'no model here' }]) })
    await releaseButton.click()
    const failure = page.getByRole('alert').filter({ hasText: 'The release failed' })
    await expect.poll(async () => await failure.textContent(), SOON)
      .toContain('The release failed: The package holds no application model (*.app file): ')
    // The service's message follows the sentence, then the code.
    expect(await failure.textContent()).toMatch(/\(\*\.app entry\) application\.release\.no\.model$/)

    const type = `com.example.console-${h.run}`
    const binary = binaryBytes(50_000, type)
    await file.setInputFiles({ name: 'greenhouse.zip', mimeType: 'application/zip', buffer: await greenhousePackage(type, '1.0.0', binary) })
    await releaseButton.click()
    await expect.poll(async () => await page.getByRole('status').filter({ hasText: 'Released' }).textContent(), SOON)
      .toBe(`Released: Serre Nord 1.0.0 (${type}).`)
    expect(await failure.count()).toBe(0) // the earlier failure is gone
    const row = page.getByRole('table', { name: 'Applications' }).getByRole('row').filter({ hasText: type })
    await expect.poll(async () => await row.textContent(), SOON).toContain('Released')
    await screenshot(page, 'applications')

    await row.getByRole('link', { name: 'Serre Nord' }).click()
    await page.getByRole('heading', { level: 1, name: 'Serre Nord 1.0.0' }).waitFor()
    const binaries = page.getByRole('table', { name: 'Binaries' }).getByRole('row').filter({ hasText: 'models/bin/greenhouse.tar.gz' })
    const text = await binaries.textContent()
    expect(text).toContain(sha256(binary))
    expect(text).toContain(md5(binary))
    expect(text).toContain('49 KB')
    expect(await definition(page, 'Update path')).toBe('MQTT_SW')
    expect(await definition(page, 'State')).toBe('Released')
    await screenshot(page, 'application')

    await page.getByRole('button', { name: 'Publish' }).click()
    await expect.poll(async () => await definition(page, 'State'), SOON).toBe('Published')
    expect(await definition(page, 'Published')).not.toBe('—')
    expect(await page.getByRole('button', { name: 'Publish' }).count()).toBe(0)
    expect((await applicationsOfType(h.stack, type))[0]?.state).toBe('PUBLISHED')

    await page.getByRole('button', { name: 'Delete', exact: true }).click()
    await page.getByRole('dialog', { name: 'Delete Serre Nord 1.0.0?' }).getByRole('button', { name: 'Delete application' }).click()
    await page.waitForURL(/#\/applications$/)
    await page.getByRole('table', { name: 'Applications' }).waitFor()
    expect(await page.getByRole('table', { name: 'Applications' }).getByRole('row').filter({ hasText: type }).count()).toBe(0)
    expect(await applicationsOfType(h.stack, type)).toEqual([])
    expect(tab.errors).toEqual([])
  })

  it('installs with waves from the fleet page, shows the open wave, pauses and resumes, and keeps the application in use', async () => {
    // A published application with an update path (MQTT_SW), released and published through the API.
    const type = `com.example.install-${h.run}`
    await release(h.stack, await greenhousePackage(type, '2.0.0'))
    const app = (await applicationsOfType(h.stack, type))[0]
    const published = await h.stack.call(h.stack.adminToken, { method: 'POST', url: '/api/v1/operations/applications/publish', payload: { application: app?.uid } })
    expect((await finished(h.stack, (published.json() as { operation: string }).operation)).task.state).toBe('SUCCESS')
    // Two systems whose devices have gone offline: the first wave's task waits for its device, so the second wave
    // stays closed for as long as the test looks at it.
    const label = `install-${h.run}`
    for (let i = 0; i < 2; i++) await (await h.addDevice([label])).close()

    const tab = await h.open()
    const { page } = tab
    await signIn(tab, h.stack, undefined, `#/fleet?labels=${label}`)
    const systems = page.getByRole('table', { name: 'Systems' })
    await expect.poll(async () => await systems.getByRole('rowheader').count(), SOON).toBe(2)
    await page.getByRole('checkbox', { name: 'Select all systems on this page' }).check()
    await page.getByRole('toolbar', { name: 'Actions on the selected systems' }).getByRole('button', { name: 'Install application…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Install an application on 2 systems' })
    const choice = dialog.getByLabel('Application')
    await expect.poll(async () => await choice.locator('option').allTextContents(), SOON).toContain(`Serre Nord 2.0.0 (${type})`)
    await choice.selectOption({ label: `Serre Nord 2.0.0 (${type})` })
    await dialog.getByText('Rollout options').click()
    // Waves that shrink are refused by the service, naming the field, and nothing starts.
    await dialog.getByLabel('Waves (%)').fill('50, 10')
    await dialog.getByRole('button', { name: 'Install', exact: true }).click()
    await expect.poll(async () => await dialog.getByRole('alert').textContent(), SOON)
      .toBe('The rollout option rollout.waves[1] is not valid: must be greater than 50 (waves are cumulative).')
    await dialog.getByLabel('Waves (%)').fill('50, 100')
    await dialog.getByLabel('Wave success (%)').fill('100')
    await screenshot(page, 'fleet-install')
    await dialog.getByRole('button', { name: 'Install', exact: true }).click()
    await page.waitForURL(/#\/operations\/[0-9a-f]{32}$/)
    const uid = new URL(page.url()).hash.replace('#/operations/', '')
    const installs = await h.stack.call(h.stack.adminToken, { method: 'GET', url: '/api/v1/operations?operationTypes=SYSTEM_INSTALL_APPLICATION' })
    expect((installs.json() as { count: number }).count).toBe(1) // the refused request created none

    const main = page.getByRole('main')
    await main.getByRole('heading', { level: 1, name: 'Install application' }).waitFor()
    await expect.poll(async () => await definition(page, 'Wave'), SOON).toBe('Wave 1 of 2: up to 50 % of the systems (1 of 2)')
    await expect.poll(async () => await definition(page, 'Sent'), SOON).toBe('1 of 2')
    expect(await main.getByRole('region', { name: 'Rollout' }).textContent()).toContain('Waves of 50 %, 100 % of the systems; each next wave starts once 100 % of the tasks of the waves before it succeeded.')
    // Per device: one task sent and waiting for its device, the other held back by the closed wave.
    const tasks = main.getByRole('table', { name: 'Tasks' })
    await expect.poll(async () => (await tasks.getByRole('row').allTextContents()).join('|'), SOON).toMatch(/Pending/)

    await main.getByRole('button', { name: 'Pause' }).click()
    await expect.poll(async () => await definition(page, 'Sending'), SOON).toBe('Paused: no new task leaves until it is resumed')
    expect((await getOperation(h.stack, uid)).rollout).toMatchObject({ paused: true, wave: 1 })
    await screenshot(page, 'operation-rollout')
    await main.getByRole('button', { name: 'Resume' }).click()
    await expect.poll(async () => await definition(page, 'Sending'), SOON).toBe('Running')
    expect((await getOperation(h.stack, uid)).rollout).toMatchObject({ paused: false })

    // The application the running install names cannot be deleted: the refusal in words, the application kept.
    await page.goto(`${h.stack.httpUrl}/console/#/applications/${String(app?.uid)}`)
    await page.getByRole('button', { name: 'Delete', exact: true }).click()
    const confirm = page.getByRole('dialog', { name: 'Delete Serre Nord 2.0.0?' })
    await confirm.getByRole('button', { name: 'Delete application' }).click()
    await expect.poll(async () => await confirm.getByRole('alert').textContent(), SOON)
      .toBe('The application is in use (an operation not finished names it, or systems have it): it cannot be deleted. 1 operation(s) in progress name it.')
    expect(await applicationsOfType(h.stack, type)).toHaveLength(1)
    expect(tab.errors).toEqual([])
  })

  it('shows why a rollout stopped by itself, and each task\'s reason in words', async () => {
    const type = `com.example.abort-${h.run}`
    await release(h.stack, await greenhousePackage(type, '3.0.0'))
    const app = (await applicationsOfType(h.stack, type))[0]
    // Systems without a device password: the first wave's task fails at once, so the second wave can never start.
    const label = `abort-${h.run}`
    const systems = await createSystems(h.stack, 2, label, [label])
    const res = await h.stack.call(h.stack.adminToken, {
      method: 'POST',
      url: '/api/v1/operations/systems/applications/install',
      payload: { application: app?.uid, systems: { uids: systems }, rollout: { waves: [50, 100] } }
    })
    expect(res.statusCode).toBe(200)
    const uid = (res.json() as { operation: string }).operation

    const tab = await h.open()
    const { page } = tab
    await signIn(tab, h.stack, undefined, `#/operations/${uid}`)
    const main = page.getByRole('main')
    await expect.poll(async () => await main.getByRole('note').textContent(), SOON)
      .toBe('Stopped: wave 1 could no longer reach 95 % of successes (1 of its 1 system; 0 succeeded, 1 failed), so no later wave could start. The remaining tasks were cancelled.')
    const rows = async (): Promise<string> => (await main.getByRole('table', { name: 'Tasks' }).getByRole('row').allTextContents()).join('|')
    await expect.poll(rows, SOON).toContain('The rollout was stopped before this system\'s turn: a wave could no longer reach its share of successes.')
    expect(await rows()).toContain('The system has no identifier for its protocol: the device cannot be reached')
    // Finished once every task has ended: nothing left to hold back.
    await expect.poll(async () => await definition(page, 'State'), SOON).toBe('Finished')
    expect(await main.getByRole('button', { name: 'Pause' }).count()).toBe(0)
    await screenshot(page, 'operation-aborted')
    expect(tab.errors).toEqual([])
  })
})
