// The console in a real browser (docs/console.md): Debian's Chromium driven by playwright-core
// (no browser download; .ci/run installs the package), the service listening on real ports, and simulated devices
// from simulator/ sending over MQTT. One browser per test file, closed with everything else by `close()`.
import { existsSync, mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { deviceIdentity, newRunTag } from '../../simulator/devices/identity.js'
import type { SimulatedDevice } from '../../simulator/devices/simulated-device.js'
import { addDevice, genericApplication } from '../../simulator/fleet.js'
import { connectApi, type ApiClient } from '../../simulator/provision.js'
import { ADMIN_EMAIL, ADMIN_PASSWORD, CLIENT_ID, CLIENT_SECRET, startStack, type Stack } from './stack.js'

export const CHROMIUM = '/usr/bin/chromium'
// The machine has no network: without these Chromium spends its time on updates, sync and QUIC probes that never
// answer (and its sandbox needs privileges that containers lack).
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync']

/** Where each page's screenshot goes (gitignored; CI keeps the folder as an artifact, docs/testing.md names it). */
export const SCREENSHOTS = fileURLToPath(new URL('../../artifacts/screenshots/', import.meta.url))

/** For expect.poll on a page (its default of 1 s is short for a page that loads through the API on a loaded CI machine). */
export const SOON = { timeout: 15_000, interval: 100 }

/** A phone's width ("readable on a phone's width"). */
export const PHONE = { width: 360, height: 740 }
const DESKTOP = { width: 1280, height: 860 }

export interface ConsoleTab {
  page: Page
  context: BrowserContext
  /** Uncaught exceptions and console.error lines of the page: a test ends by expecting none. */
  errors: string[]
  /**
   * How many subscriptions the live stream (`/api/v1/stream`) has acknowledged to the page so far. A page reads the
   * API, then subscribes: what a device sends before the acknowledgement is not streamed to it, so a test of live
   * updates waits for it before sending.
   */
  subscribed: () => number
}

export interface Harness {
  stack: Stack
  browser: Browser
  /** The simulator's API client (the admin's token), which registers devices as an installer would. */
  api: ApiClient
  /** The run tag: devices' serial numbers are SIM<run><n> and their systems carry the label sim-<run>. */
  run: string
  /** Registers a system through the API and connects its simulated device over MQTT. */
  addDevice (labels?: string[]): Promise<SimulatedDevice>
  /** A new browser context (its own storage: signed out) with one page. */
  open (viewport?: { width: number, height: number }): Promise<ConsoleTab>
  close (): Promise<void>
}

export async function startHarness (): Promise<Harness> {
  // No skipping: without the browser the console is untested, which CI must not pass for a success.
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium), as .ci/run does`)
  const stack = await startStack({ listen: true })
  const devices: SimulatedDevice[] = []
  const contexts: BrowserContext[] = []
  let browser: Browser | undefined
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    const api = await connectApi({ url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
    const applicationUid = await genericApplication(api, 'mqtt')
    const run = newRunTag()
    const b = browser
    return {
      stack,
      browser: b,
      api,
      run,
      async addDevice (labels = [`sim-${run}`]) {
        const device = await addDevice(api, deviceIdentity(run, devices.length + 1), { protocol: 'mqtt', mqttUrl: stack.mqttUrl }, { labels, applicationUid })
        devices.push(device)
        return device
      },
      async open (viewport = DESKTOP) {
        const context = await b.newContext({ viewport })
        contexts.push(context)
        const page = await context.newPage()
        const errors: string[] = []
        page.on('pageerror', (err) => { errors.push(`uncaught: ${err.message}`) })
        // A failed load is reported with its address (Chromium's console line has none); the API's refusals are the
        // pages' business (they show them as sentences), the console's own files must all load.
        page.on('console', (msg) => { if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) errors.push(`console.error: ${msg.text()}`) })
        page.on('response', (res) => { if (res.status() >= 400 && !new URL(res.url()).pathname.startsWith('/api/')) errors.push(`${res.status()} ${res.url()}`) })
        let subscribed = 0
        page.on('websocket', (ws) => {
          ws.on('framereceived', (f) => { if (typeof f.payload === 'string' && f.payload.includes('"event":"subscribed"')) subscribed++ })
        })
        return { page, context, errors, subscribed: () => subscribed }
      },
      async close () {
        for (const d of devices) await d.close().catch(() => {})
        for (const c of contexts) await c.close().catch(() => {})
        await b.close()
        await stack.close()
      }
    }
  } catch (err) {
    await browser?.close()
    await stack.close()
    throw err
  }
}

/**
 * Opens the console and signs in through the service's own sign-in page (the authorization_code grant with PKCE,
 * docs/api.md#get-a-token), then waits for the console's main area.
 */
export async function signIn (tab: ConsoleTab, stack: Stack, who: { email: string, password: string } = { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, route = ''): Promise<void> {
  const { page } = tab
  await page.goto(`${stack.httpUrl}/console/${route}`)
  await page.getByLabel('E-mail').fill(who.email)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL((u) => u.pathname === '/console/' && !u.searchParams.has('code'))
  await page.getByRole('main').waitFor()
}

/** A screenshot of the whole page under artifacts/screenshots/<name>.png. */
export async function screenshot (page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  const path = `${SCREENSHOTS}${name}.png`
  await page.screenshot({ path, fullPage: true })
  return path
}
