// A real hawkBit DDI client against the service (docs/protocols/ddi.md): Debian's SWUpdate in suricatta mode polls,
// reads the deployment of an install operation, downloads the .swu through the task's link, checks its SHA-1, installs
// it (its rawfile handler writes a file under the test's directory) and reports; restarted with `-c 2` as after the
// reboot that tests an update, it closes the action with success: the operation's task SUCCESS and the application
// among the system's. A download whose bytes are not the deployment's ends the action with failure.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../helpers/stack.js'
import { createDevice, eventually, taskState, type Device } from '../helpers/devices.js'
import { allTasks, started, waitFinished } from '../helpers/operations.js'
import { insertInstall, operationTask, releasedFirmware } from '../int/ddi/ddi-fixtures.js'
import { applicationsOf, postSoftware } from '../int/packages/install-fixtures.js'

let stack: Stack
let work: string
const running: ChildProcess[] = []
beforeAll(async () => {
  stack = await startStack({ listen: true })
  work = mkdtempSync(join(tmpdir(), 'ddi-swupdate-'))
  // Debian builds SWUpdate for CMS-signed images only: a self-signed signer, which SWUpdate is given as its CA (-k).
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(work, 'key.pem'), '-out', join(work, 'cert.pem'), '-days', '2',
    '-subj', '/CN=fleet-ddi-test', '-addext', 'extendedKeyUsage=emailProtection', '-addext', 'keyUsage=digitalSignature'], { stdio: 'ignore' })
}, 120_000)
afterAll(async () => {
  for (const p of running) p.kill('SIGKILL')
  await stack.close()
  rmSync(work, { recursive: true, force: true })
})

/** One entry of a cpio "newc" archive: the 110-byte ASCII header, the name, the data, each padded to 4 bytes. */
function cpioEntry (name: string, data: Buffer, mode = 0o100644): Buffer {
  const hex = (n: number): string => n.toString(16).padStart(8, '0')
  const nameBytes = Buffer.from(`${name}\0`)
  const header = '070701' + [1, mode, 0, 0, 1, 0, data.length, 0, 0, 0, 0, nameBytes.length, 0].map(hex).join('')
  const pad = (n: number): Buffer => Buffer.alloc((4 - (n % 4)) % 4)
  return Buffer.concat([Buffer.from(header), nameBytes, pad(110 + nameBytes.length), data, pad(data.length)])
}

/** sw-description's CMS signature (DER), as SWUpdate's signed images carry it in sw-description.sig. */
function sign (description: Buffer): Buffer {
  const dir = mkdtempSync(join(work, 'sign-'))
  writeFileSync(join(dir, 'sw-description'), description)
  execFileSync('openssl', ['cms', '-sign', '-in', join(dir, 'sw-description'), '-out', join(dir, 'sig'), '-signer', join(work, 'cert.pem'),
    '-inkey', join(work, 'key.pem'), '-outform', 'DER', '-nosmimecap', '-binary'])
  return readFileSync(join(dir, 'sig'))
}

// Debian builds SWUpdate with hardware compatibility required: an image names the revisions it fits, and SWUpdate
// is told its board and revision with -H (instead of reading /etc/hwrevision, which the test leaves alone).
const BOARD = 'fleet-gw:1.0'

/** A signed .swu: sw-description and its signature first, then the payload its rawfile handler writes to `target`. */
function swu (target: string, payload: Buffer): Buffer {
  const sha256 = createHash('sha256').update(payload).digest('hex')
  const description = Buffer.from(`software = {
  version = "2.1";
  description = "gateway firmware for the DDI test";
  hardware-compatibility = [ "1.0" ];
  files: (
    { filename = "payload.txt"; path = "${target}"; sha256 = "${sha256}"; }
  );
};
`)
  return Buffer.concat([
    cpioEntry('sw-description', description), cpioEntry('sw-description.sig', sign(description)), cpioEntry('payload.txt', payload), cpioEntry('TRAILER!!!', Buffer.alloc(0), 0)
  ])
}

/** SWUpdate's suricatta for this device; its output is kept for the failure message. */
function suricatta (d: Device, extra: string[] = []): { child: ChildProcess, output: () => string } {
  let out = ''
  const args = ['-v', '-H', BOARD, '-k', join(work, 'cert.pem'), '-u', [`-t DEFAULT -u ${stack.httpUrl}/ddi -i ${d.serial} -k ${d.restPassword ?? ''}`, ...extra].join(' ')]
  const child = spawn('swupdate', args, { env: { ...process.env, TMPDIR: mkdtempSync(join(work, 'run-')) }, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout?.on('data', (b: Buffer) => { out += b.toString() })
  child.stderr?.on('data', (b: Buffer) => { out += b.toString() })
  running.push(child)
  return { child, output: () => out }
}

async function stop (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

/** The controller's poll sleeps a second (the DDI communication's pollPeriodS): the system speaks DDI through it. */
async function ddiDevice (): Promise<Device> {
  const d = await createDevice(stack)
  const app = await stack.call(stack.adminToken, {
    method: 'POST',
    url: '/api/v1/applications',
    payload: { name: 'DDI gateway', type: `ddi.gw.${d.serial}`, revision: '1.0', communication: [{ type: 'DDI', commIdType: 'SERIAL', parameters: { pollPeriodS: 1 } }] }
  })
  expect(app.statusCode, app.body).toBe(200)
  const put = await stack.call(stack.adminToken, { method: 'PUT', url: `/api/v1/systems/${d.uid}`, payload: { applications: [{ uid: (app.json() as { uid: string }).uid }] } })
  expect(put.statusCode, put.body).toBe(200)
  return d
}

// SWUpdate polls every second here; the wait is for its install and its reports, each a few polls.
const WAIT = { timeoutMs: 60_000, intervalMs: 200, retryErrors: true }

/** The controller's latest feedback details on the system's action. */
const feedbackOf = async (systemUid: string): Promise<string> =>
  (await stack.db.query<{ details: string | null }>('SELECT coalesce(details, \'\') AS details FROM ddi_actions WHERE system_uid = $1', [systemUid])).rows[0]?.details ?? ''

describe('SWUpdate suricatta', () => {
  it('installs the .swu of an install operation and, restarted to confirm, ends the task SUCCESS with the application on the system', async () => {
    const d = await ddiDevice()
    const target = join(work, 'installed.txt')
    const firmware = await releasedFirmware(stack, swu(target, Buffer.from('firmware 2.1\n')))
    const first = suricatta(d)
    const uid = await started(postSoftware(stack, 'install', { application: firmware.uid, systems: { uids: [d.uid] } }))
    await eventually(async () => {
      expect(existsSync(target), first.output()).toBe(true)
      expect(await feedbackOf(d.uid), first.output()).toContain('All Chunks Installed')
      return true
    }, WAIT)
    expect(readFileSync(target, 'utf8')).toBe('firmware 2.1\n')
    // Installed is not yet succeeded: the update is good once the device says so after its reboot.
    expect((await allTasks(stack, uid)).map((t) => t.state)).toEqual(['IN_PROGRESS'])
    await stop(first.child)
    const confirm = suricatta(d, ['-c 2'])
    await eventually(async () => { expect((await allTasks(stack, uid)).map((t) => t.state), confirm.output()).toEqual(['SUCCESS']); return true }, WAIT)
    await waitFinished(stack, uid, WAIT.timeoutMs)
    expect(await applicationsOf(stack, d.uid)).toContain(firmware.uid)
    await stop(confirm.child)
  }, 150_000)

  it('a download whose SHA-1 is not the deployment\'s closes the action with failure', async () => {
    const d = await ddiDevice()
    const target = join(work, 'corrupt.txt')
    const good = swu(target, Buffer.from('firmware 2.2\n'))
    const run = suricatta(d)
    const inst = await insertInstall(stack, d.uid, { bytes: good, served: Buffer.concat([good, Buffer.from('tampered')]) })
    await eventually(async () => {
      expect(await taskState(stack, inst.taskUid), run.output()).toMatchObject({ state: 'ERROR' })
      expect((await operationTask(stack, inst.taskUid)).state).toBe('FAILURE')
      return true
    }, WAIT)
    await stop(run.child)
  }, 150_000)
})
