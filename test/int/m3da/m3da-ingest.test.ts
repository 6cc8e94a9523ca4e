// M3DA devices over TCP (M3DA_PORT) and HTTP (POST /device/com) (docs/protocols/m3da.md): an unsecured agent admitted
// by `authentication: "none"`, signed agents with each MAC and cipher, the 401/407 challenges, a wrong password and a
// replayed envelope storing nothing, auto-registration, the real agents' quirks, malformed bytes and the company's
// device address filtering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { ClassId, decodePayload, encodeEnvelope, encodePayload, EnvelopeReader, M3DA_CLASSES } from '../../../protocols/m3da/index.js'
import { encodeDeviceChallenge, openServerEnvelope } from '../../../protocols/m3da/security/index.js'
import { bysantObject, Ctx, encode, unsizedMap } from '../../../protocols/bysant/index.js'
import type { Stack } from '../../helpers/stack.js'
import { eventually, messagesOf, pointsOf, refusedCount, settle, telemetryCounts, transportOf } from '../../helpers/devices.js'
import type { M3daTransport } from '../../../ingest/m3da/m3da.transport.js'
import { getSystem } from '../../helpers/systems.js'
import { autoregister, httpLink, SecureDevice, sendUnsecured, tcpLink, type Link } from './m3da-device.js'
import { m3daApplication, m3daSystem, startM3daStack, storedPassword } from './m3da-fixtures.js'

let stack: Stack
let open: string
let generic: string
beforeAll(async () => { ({ stack, open, generic } = await startM3daStack()) }, 120_000)
afterAll(async () => { await stack?.close() })

const links: Array<[string, () => Promise<Link>]> = [['TCP', async () => await tcpLink(stack)], ['HTTP', async () => httpLink(stack)]]
const EMPTY = { messages: 0, points: 0, last: 0, acks: 0 }

describe.each(links)('an unsecured agent over %s', (_name, linkOf) => {
  it('is admitted with authentication "none": one device message per envelope, @sys paths as System data, a Response per ticket', async () => {
    const s = await m3daSystem(stack, { applications: [open] })
    const link = await linkOf()
    const reply = await sendUnsecured(link, s.serial, [
      { kind: 'message', path: 'greenhouse.data', ticketId: 12, body: { timestamps: [1_416_324_560, 1_416_324_561], temperature: [21.5, 22] } },
      { kind: 'message', path: '@sys.system.cellular.link', ticketId: null, body: { rssi: -71, service: 'LTE' } }
    ])
    expect(reply.status).toBe(200)
    expect(reply.objects).toEqual([{ kind: 'response', ticketId: 12, status: 0, data: null }])
    // Answered after the commit: the message is there at once.
    const [m] = await messagesOf(stack, s.uid)
    // Its timestamp is its latest point: the @sys values stamped at reception.
    expect(m).toMatchObject({ protocol: 'M3DA', nbDataPoints: 4, ts: m?.receivedAt })
    expect((await pointsOf(stack, s.uid)).map((p) => [p.dataId, p.ts === m?.receivedAt ? 'received' : p.ts, p.num ?? p.str])).toEqual([
      ['greenhouse.data.temperature', 1_416_324_560_000, 21.5],
      ['greenhouse.data.temperature', 1_416_324_561_000, 22],
      ['_NETWORK_SERVICE_TYPE', 'received', 'LTE'],
      ['_RSSI', 'received', -71]
    ])
    await settle(stack)
    expect((await getSystem(stack, s.uid)).data).toMatchObject({ rssi: -71, rssiLevel: 'VERY_GOOD', networkServiceType: 'LTE' })
    await link.close()
  })

  it('takes what real agents write: maps without declared length, a null footer, an empty payload written 00', async () => {
    const s = await m3daSystem(stack, { applications: [open] })
    const link = await linkOf()
    const payload = encode(bysantObject(ClassId.Message, ['greenhouse', null, unsizedMap({ humidity: 55 })]), Ctx.Global, M3DA_CLASSES)
    const reply = await link.exchange(encodeEnvelope({ header: unsizedMap({ id: s.serial }), payload, footer: null }))
    expect(reply?.header.status).toBe(200)
    const keepAlive = await link.exchange(encodeEnvelope({ header: unsizedMap({ id: s.serial }), payload: Buffer.from([0]), footer: null }))
    expect(keepAlive?.header.status).toBe(200)
    expect((await pointsOf(stack, s.uid)).map((p) => [p.dataId, p.num])).toEqual([['greenhouse.humidity', 55]])
    expect((await messagesOf(stack, s.uid)).length).toBe(1)
    await link.close()
  })

  it('is refused (403) when nothing admits it: no password and no authentication "none"; nothing stored', async () => {
    const s = await m3daSystem(stack, { applications: [generic] })
    const link = await linkOf()
    const reply = await sendUnsecured(link, s.serial, [{ kind: 'message', path: 'a', ticketId: null, body: { b: 1 } }])
    expect(reply.status).toBe(403)
    expect(await telemetryCounts(stack, s.uid)).toEqual(EMPTY)
    const unknown = await sendUnsecured(await linkOf(), 'NO-SUCH-DEVICE', [{ kind: 'message', path: 'a', ticketId: null, body: { b: 1 } }])
    expect(unknown.status).toBe(403)
    await link.close()
  })
})

const ALGORITHMS = ['hmac-md5', 'hmac-sha1'] as const
const CIPHERS = ['none', 'aes-cbc-128', 'aes-cbc-256', 'aes-ctr-128', 'aes-ctr-256'] as const

describe('signed agents', () => {
  for (const algorithm of ALGORITHMS) {
    for (const cipher of CIPHERS) {
      it(`${algorithm} with ${cipher} over TCP: challenged once (no nonce agreed yet), then the nonce chain holds`, async () => {
        const password = 'm3da-secret-1'
        // Half the systems name the cipher in their application; the others leave it to be found.
        const app = cipher.endsWith('128') ? await m3daApplication(stack, { encryption: cipher }) : generic
        const s = await m3daSystem(stack, { password, applications: [app] })
        const device = SecureDevice.withPassword(s.serial, password, { algorithm, cipher })
        const link = await tcpLink(stack)
        const first = await device.request(link, [{ kind: 'message', path: 'greenhouse', ticketId: 3, body: { temperature: 20 } }])
        expect(first).toMatchObject({ status: 200, objects: [{ kind: 'response', ticketId: 3, status: 0, data: null }] })
        expect(device.challenges).toEqual([401])
        const second = await device.request(link, [{ kind: 'message', path: 'greenhouse', ticketId: null, body: { temperature: 21 } }])
        expect(second.status).toBe(200)
        expect(device.challenges).toEqual([401])
        expect((await pointsOf(stack, s.uid)).map((p) => p.num)).toEqual([20, 21])
        await link.close()
        // The nonce the device must sign with next is in the store (it survives a restart).
        await (transportOf(stack, 'm3da') as M3daTransport).flush()
        const { rows } = await stack.db.query<{ nonce: Uint8Array }>('SELECT nonce FROM m3da_devices WHERE system_uid = $1', [s.uid])
        expect(Buffer.from(rows[0]?.nonce ?? []).equals(device.nonce ?? Buffer.alloc(0))).toBe(true)
        // A new connection (a new session) starts with the stored nonce: no challenge.
        const again = await tcpLink(stack)
        expect((await device.request(again, [{ kind: 'message', path: 'greenhouse', ticketId: null, body: { temperature: 22 } }])).status).toBe(200)
        expect(device.challenges).toEqual([401])
        await again.close()
      })
    }
  }

  it('over HTTP: each POST one package, the nonce carried over between requests', async () => {
    const password = 'm3da-secret-2'
    const s = await m3daSystem(stack, { password, applications: [generic] })
    const device = SecureDevice.withPassword(s.serial, password, { algorithm: 'hmac-sha1', cipher: 'aes-cbc-128' })
    const link = httpLink(stack)
    for (const t of [1, 2, 3]) expect((await device.request(link, [{ kind: 'message', path: 'g', ticketId: null, body: { t } }])).status).toBe(200)
    expect(device.challenges).toEqual([401])
    expect((await pointsOf(stack, s.uid)).map((p) => p.num)).toEqual([1, 2, 3])
  })

  it('an unsigned envelope to a system with a password is challenged 407, then accepted signed with the given nonce', async () => {
    const password = 'm3da-secret-3'
    const s = await m3daSystem(stack, { password, applications: [generic] })
    const link = await tcpLink(stack)
    const challenge = await link.exchange(encodeEnvelope({ header: { id: s.serial }, payload: encodePayload([{ kind: 'message', path: 'g', ticketId: null, body: { x: 1 } }]), footer: null }))
    expect(challenge?.header).toMatchObject({ status: 407, challenge: Buffer.from('hmac-sha1') })
    expect(await telemetryCounts(stack, s.uid)).toEqual(EMPTY)
    const device = SecureDevice.withPassword(s.serial, password, { algorithm: 'hmac-sha1', cipher: 'none' })
    device.nonce = challenge?.header.nonce as Buffer
    expect((await device.request(link, [{ kind: 'message', path: 'g', ticketId: null, body: { x: 1 } }])).status).toBe(200)
    expect(device.challenges).toEqual([])
    expect((await messagesOf(stack, s.uid)).length).toBe(1)
    await link.close()
  })

  it('a wrong password is challenged 401, a second failure ends the session; nothing stored', async () => {
    const s = await m3daSystem(stack, { password: 'the-right-one', applications: [generic] })
    const device = SecureDevice.withPassword(s.serial, 'a-wrong-one', { algorithm: 'hmac-md5', cipher: 'none' })
    const link = await tcpLink(stack)
    const reply = await device.request(link, [{ kind: 'message', path: 'g', ticketId: null, body: { x: 1 } }])
    expect(device.challenges).toEqual([401])
    expect(reply.status).not.toBe(200)
    await eventually(async () => link.closed(), 5000, 'the session closed')
    expect(await telemetryCounts(stack, s.uid)).toEqual(EMPTY)
  })

  it('a replayed envelope (signed with a nonce already used) is challenged and stores nothing again', async () => {
    const password = 'm3da-secret-4'
    const s = await m3daSystem(stack, { password, applications: [generic] })
    const device = SecureDevice.withPassword(s.serial, password, { algorithm: 'hmac-sha1', cipher: 'aes-ctr-256' })
    const link = await tcpLink(stack)
    await device.request(link, [{ kind: 'message', path: 'g', ticketId: null, body: { x: 0 } }])
    const captured = device.seal([{ kind: 'message', path: 'g', ticketId: null, body: { x: 1 } }])
    const ok = await link.exchange(captured.bytes)
    expect(ok?.footer.mac).toBeDefined()
    const replayed = await link.exchange(captured.bytes)
    expect(replayed?.header).toMatchObject({ status: 401 })
    expect((await pointsOf(stack, s.uid)).map((p) => p.num)).toEqual([0, 1])
    await link.close()
  })
})

describe('what real agents also do', () => {
  it('the device challenges a reply whose signature it does not trust: the same reply comes back signed with its nonce', async () => {
    const password = 'm3da-secret-5'
    const s = await m3daSystem(stack, { password, applications: [generic] })
    const device = SecureDevice.withPassword(s.serial, password, { algorithm: 'hmac-md5', cipher: 'aes-cbc-256' })
    const link = await tcpLink(stack)
    await device.request(link, [{ kind: 'message', path: 'g', ticketId: 7, body: { x: 1 } }])
    const challenge = encodeDeviceChallenge({ deviceId: s.serial, algorithm: 'hmac-md5' })
    const resent = await link.exchange(challenge.bytes)
    const opened = resent === null ? null : openServerEnvelope(resent, { keys: device.keys, nonce: challenge.nonce, cipher: 'aes-cbc-256' })
    expect(opened?.kind).toBe('open')
    if (opened?.kind !== 'open') return
    expect(decodePayload(opened.inner.payload)).toEqual({ ok: true, objects: [{ kind: 'response', ticketId: 7, status: 0, data: null }] })
    // The chain goes on from the nonce the re-sent reply announced.
    device.nonce = opened.nextNonce
    expect((await device.request(link, [{ kind: 'message', path: 'g', ticketId: null, body: { x: 2 } }])).status).toBe(200)
    expect(device.challenges).toEqual([401])
    expect((await messagesOf(stack, s.uid)).length).toBe(2)
    await link.close()
  })

  it('an unsigned {id, status} after a failure on the device side is not answered; the next request is', async () => {
    const password = 'm3da-secret-6'
    const s = await m3daSystem(stack, { password, applications: [generic] })
    const device = SecureDevice.withPassword(s.serial, password, { algorithm: 'hmac-sha1', cipher: 'none' })
    const link = await tcpLink(stack)
    await device.request(link, [{ kind: 'message', path: 'g', ticketId: null, body: { x: 1 } }])
    await link.send(encodeEnvelope({ header: unsizedMap({ id: s.serial, status: 500 }), payload: Buffer.alloc(0), footer: null }))
    // Were the error answered, that answer would come first and the request below would not open.
    expect((await device.request(link, [{ kind: 'message', path: 'g', ticketId: null, body: { x: 2 } }])).status).toBe(200)
    expect((await messagesOf(stack, s.uid)).length).toBe(2)
    await link.close()
  })

  it('random bytes never stop the service: each connection is answered or closed, the next device is served', async () => {
    const s = await m3daSystem(stack, { applications: [open] })
    await fc.assert(fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 300 }), async (bytes) => {
      const link = await tcpLink(stack)
      await link.send(Buffer.from(bytes))
      await link.close()
    }), { numRuns: 100 })
    const link = await tcpLink(stack)
    expect((await sendUnsecured(link, s.serial, [{ kind: 'message', path: 'a', ticketId: null, body: { b: 1 } }])).status).toBe(200)
    await link.close()
  })
})

describe('auto-registration', () => {
  it.each(links)('over %s: the registration password provisions a new password, stored; the next envelope is signed with it', async (_name, linkOf) => {
    const s = await m3daSystem(stack, { registrationPassword: 'shared-registration', applications: [generic] })
    const link = await linkOf()
    const keys = await autoregister(link, s.serial, 'shared-registration')
    const password = await eventually(async () => await storedPassword(stack, s.uid), 5000, 'the new password')
    expect(password).toMatch(/^[\x21-\x7e]{8,64}$/)
    // The agent sends its next request at once on the same link, with the new keys and a nonce the service
    // does not know: challenged, then accepted.
    const device = new SecureDevice(s.serial, keys, { algorithm: 'hmac-sha1', cipher: 'none' })
    expect((await device.request(link, [{ kind: 'message', path: 'g', ticketId: null, body: { x: 1 } }])).status).toBe(200)
    expect(device.challenges).toEqual([401])
    expect((await messagesOf(stack, s.uid)).length).toBe(1)
    await link.close()
  })

  it('a wrong registration password provisions nothing', async () => {
    const s = await m3daSystem(stack, { registrationPassword: 'shared-registration', applications: [generic] })
    const link = await tcpLink(stack)
    await expect(autoregister(link, s.serial, 'not-the-registration')).rejects.toThrow()
    expect(await storedPassword(stack, s.uid)).toBeNull()
    await link.close()
  })
})

describe('malformed bytes and address filtering', () => {
  it('TCP: bytes that are no envelope are answered 400, counted, the connection closed; the service serves the next one', async () => {
    const before = refusedCount(stack, 'M3DA:')
    const link = await tcpLink(stack)
    const reply = await link.exchange(Buffer.from('GET / HTTP/1.1\r\n\r\n'))
    expect(reply?.header.status).toBe(400)
    await eventually(async () => link.closed(), 5000, 'the connection closed')
    expect(refusedCount(stack, 'M3DA:')).toBe(before + 1)
    const s = await m3daSystem(stack, { applications: [open] })
    const next = await tcpLink(stack)
    expect((await sendUnsecured(next, s.serial, [{ kind: 'message', path: 'a', ticketId: null, body: { b: 1 } }])).status).toBe(200)
    await next.close()
  })

  it('HTTP: a body that is no envelope is 400 and counted; a payload that is no Messages from an admitted device is 400, nothing stored', async () => {
    const before = refusedCount(stack, 'M3DA:')
    const link = httpLink(stack)
    expect((await link.exchange(Buffer.from([0x60, 0xff, 0xff])))?.header.status).toBe(400)
    expect(link.lastStatus).toBe(400)
    const s = await m3daSystem(stack, { applications: [open] })
    const reply = await link.exchange(encodeEnvelope({ header: { id: s.serial }, payload: Buffer.from([0x61, 0x01]), footer: {} }))
    expect(reply?.header.status).toBe(400)
    expect(refusedCount(stack, 'M3DA:')).toBe(before + 2)
    expect(await telemetryCounts(stack, s.uid)).toEqual(EMPTY)
  })

  it('TCP: an envelope beyond the size bound is refused and closes the connection', async () => {
    const link = await tcpLink(stack)
    const header = encodeEnvelope({ header: { id: 'X' }, payload: Buffer.alloc(3 * 1024 * 1024, 1) })
    const reply = await link.exchange(header)
    expect(reply?.header.status).toBe(400)
    await eventually(async () => link.closed(), 5000, 'the connection closed')
  })

  it('the company\'s deviceIpFiltering: 127.0.0.1 not allowed → 403, nothing stored', async () => {
    const s = await m3daSystem(stack, { applications: [open] })
    const filter = async (on: boolean): Promise<void> => {
      const res = await stack.call(stack.adminToken, {
        method: 'PUT',
        url: `/api/v1/company/${stack.companyUid}`,
        payload: { deviceIpFiltering: on, deviceIpFilters: { ipAddresses: ['10.1.2.3'], startIPAddress: null, endIPAddress: null } }
      })
      expect(res.statusCode).toBe(200)
    }
    await filter(true)
    try {
      for (const [, linkOf] of links) {
        const reply = await sendUnsecured(await linkOf(), s.serial, [{ kind: 'message', path: 'a', ticketId: null, body: { b: 1 } }])
        expect(reply.status).toBe(403)
      }
      expect(await telemetryCounts(stack, s.uid)).toEqual(EMPTY)
    } finally {
      await filter(false)
    }
  })
})

// The reader of the test device must read what the service writes back to back.
it('the replies decode with the codec (sanity of the test device)', () => {
  const r = new EnvelopeReader()
  r.push(Buffer.concat([encodeEnvelope({ header: { status: 200 } }), encodeEnvelope({ header: { status: 400 } })]))
  expect([r.next(), r.next()].map((x) => x !== 'more' && x.ok ? x.envelope.header.status : null)).toEqual([200, 400])
})
