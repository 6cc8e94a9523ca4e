// The console in a real browser (docs/console.md): Debian's Chromium driven by playwright-core
// (no browser download; .ci/run installs the package), the service listening on real ports, and simulated devices
// from simulator/ sending over MQTT. One browser per test file, closed with everything else by `close()`. With
// `https: true` the console is opened on the HTTPS port (docs/security.md#tls) under a test CA's certificate.
import { createHash, X509Certificate } from 'node:crypto'
import { existsSync, mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { deviceIdentity, newRunTag } from '../../simulator/devices/identity.js'
import type { SimulatedDevice } from '../../simulator/devices/simulated-device.js'
import { addDevice, genericApplication } from '../../simulator/fleet.js'
import { connectApi, type ApiClient } from '../../simulator/provision.js'
import { makeCa, makeServerCert, pemDir, tlsEnv, type Issued } from './pki.js'
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
  /** Where the console is opened: the HTTP port's origin, or the HTTPS port's with `https: true`. */
  origin: string
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
  /** With `https: true`: the CA that issued the HTTPS port's certificate (its subject's CN is `CA_NAME`). */
  ca: Issued | undefined
  /** Registers a system through the API and connects its simulated device over MQTT. */
  addDevice (labels?: string[]): Promise<SimulatedDevice>
  /** A new browser context (its own storage: signed out) with one page. */
  open (viewport?: { width: number, height: number }): Promise<ConsoleTab>
  close (): Promise<void>
}

export interface HarnessOptions {
  /** Serve HTTPS too (a test CA's server certificate) and open the console there; the HTTP port stays. */
  https?: boolean
}

/** The common name of the test CA of `https: true`: the certificate a page was served with names it as its issuer. */
export const CA_NAME = 'Fleet browser test CA'

/** What the HTTPS port needs: its certificate's files, and Chromium told to accept that certificate's key alone. */
interface HttpsSetup { ca: Issued | undefined, env: Record<string, string>, args: string[], remove: () => void }

async function httpsSetup (on: boolean): Promise<HttpsSetup> {
  if (!on) return { ca: undefined, env: {}, args: [], remove: () => {} }
  const dir = pemDir()
  const ca = await makeCa(CA_NAME)
  const server = await makeServerCert(ca)
  // Chromium does not know the test CA and the machine's trust store is not ours to change: the flag pins the server
  // key (the SHA-256 of its SubjectPublicKeyInfo), so a page that loads was served with this very certificate, where
  // ignoring certificate errors would accept any.
  const spki = new X509Certificate(server.cert).publicKey.export({ type: 'spki', format: 'der' })
  const pin = createHash('sha256').update(spki).digest('base64')
  return { ca, env: tlsEnv(dir, server), args: [`--ignore-certificate-errors-spki-list=${pin}`], remove: () => { dir.remove() } }
}

export async function startHarness (opts: HarnessOptions = {}): Promise<Harness> {
  // No skipping: without the browser the console is untested, which CI must not pass for a success.
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium), as .ci/run does`)
  const tls = await httpsSetup(opts.https === true)
  const stack = await startStack({ listen: true, env: tls.env }).catch((err: unknown) => { tls.remove(); throw err })
  const origin = opts.https === true ? stack.httpsUrl : stack.httpUrl
  const devices: SimulatedDevice[] = []
  const contexts: BrowserContext[] = []
  let browser: Browser | undefined
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...tls.args] })
    const api = await connectApi({ url: stack.httpUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
    const applicationUid = await genericApplication(api, 'mqtt')
    const run = newRunTag()
    const b = browser
    return {
      stack,
      browser: b,
      api,
      run,
      ca: tls.ca,
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
        return { page, origin, context, errors, subscribed: () => subscribed }
      },
      async close () {
        for (const d of devices) await d.close().catch(() => {})
        for (const c of contexts) await c.close().catch(() => {})
        await b.close()
        await stack.close()
        tls.remove()
      }
    }
  } catch (err) {
    await browser?.close()
    await stack.close()
    tls.remove()
    throw err
  }
}

/**
 * Opens the console at the tab's origin and signs in through the service's own sign-in page (the authorization_code
 * grant with PKCE, docs/api.md#get-a-token), then waits for the console's main area. The stack is no longer read (the
 * tab knows its origin); the parameter stays so that every caller reads the same.
 */
export async function signIn (tab: ConsoleTab, _stack: Stack, who: { email: string, password: string } = { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, route = ''): Promise<void> {
  const { page } = tab
  await page.goto(`${tab.origin}/console/${route}`)
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
