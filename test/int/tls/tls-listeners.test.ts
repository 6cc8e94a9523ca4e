// The TLS listeners (docs/security.md#tls): HTTPS serves what the HTTP port serves, MQTT over TLS on MQTTS_PORT and
// over wss at /mqtt, with real clients (curl, Node's https, mqtt.js, mosquitto_pub, openssl), TLS 1.2 and 1.3 only.
import { request } from 'node:https'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_EMAIL, startStack, type Stack } from '../../helpers/stack.js'
import { connectDevice, createDevice, endAll, eventually, messagesOf, publish, type Device } from '../../helpers/devices.js'
import { makeCa, makeServerCert, pemDir, tlsEnv, type Issued, type PemDir } from '../../helpers/pki.js'
import { run, sClient } from '../../helpers/tls-clients.js'

let dir: PemDir
let ca: Issued
let caFile: string
let stack: Stack
let device: Device

beforeAll(async () => {
  dir = pemDir()
  ca = await makeCa()
  caFile = dir.write('ca.pem', ca.cert)
  stack = await startStack({ listen: true, env: tlsEnv(dir, await makeServerCert(ca)) })
  device = await createDevice(stack)
})
afterAll(async () => {
  await stack.close()
  dir.remove()
})

const httpsPort = (): number => Number(new URL(stack.httpsUrl).port)
const mqttsUrl = (): string => `mqtts://localhost:${stack.ports.mqtts ?? 0}`

async function nodeGet (path: string, token: string): Promise<{ status: number, body: string }> {
  return await new Promise((resolve, reject) => {
    const req = request(`https://localhost:${httpsPort()}${path}`, { ca: ca.cert, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => { body += c })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body }) })
    })
    req.once('error', reject)
    req.end()
  })
}

describe('HTTPS', () => {
  it('answers the API as the HTTP port does (curl --cacert, Node https)', async () => {
    expect(stack.ports.mqtts).toBeGreaterThan(0)
    const curl = await run('curl', ['-sS', '--cacert', caFile, '-H', `authorization: Bearer ${stack.adminToken}`, '-w', '\n%{http_code} %{ssl_verify_result}', `https://localhost:${httpsPort()}/api/v1/users/current`])
    expect(curl.stderr).toBe('')
    const [body = '', status] = curl.stdout.split('\n')
    expect(status).toBe('200 0')
    expect(JSON.parse(body)).toMatchObject({ email: ADMIN_EMAIL })
    const viaNode = await nodeGet('/api/v1/users/current', stack.adminToken)
    const viaHttp = await fetch(`${stack.httpUrl}/api/v1/users/current`, { headers: { authorization: `Bearer ${stack.adminToken}` } })
    expect(viaNode.status).toBe(200)
    expect(JSON.parse(viaNode.body)).toEqual(await viaHttp.json())
    // Without the CA the certificate is not trusted: nothing is served in clear by mistake.
    expect((await run('curl', ['-sS', `https://localhost:${httpsPort()}/health`])).code).toBe(60)
    expect((await run('curl', ['-sS', '--cacert', caFile, `https://localhost:${httpsPort()}/health`])).stdout).toBe('{"status":"ok"}')
  })

  it('serves the device REST routes and refuses a wrong password as on HTTP', async () => {
    const url = `https://localhost:${httpsPort()}/device/messages`
    const post = async (password: string): Promise<string> => (await run('curl', ['-sS', '--cacert', caFile, '-o', '/dev/null', '-w', '%{http_code}',
      '-u', `${device.serial}:${password}`, '-H', 'content-type: application/json', '-d', '[{"tls.rest": [{"timestamp": 1795300000000, "value": 7}]}]', url])).stdout
    expect(await post(device.restPassword ?? '')).toBe('200')
    expect(await post('wrong')).toBe('401')
  })
})

describe('MQTT over TLS', () => {
  it('takes an mqtt.js device with its password (one-way TLS) and stores its message', async () => {
    const before = (await messagesOf(stack, device.uid)).length
    const client = await connectDevice(mqttsUrl(), device.serial, device.mqttPassword ?? '', { ca: ca.cert })
    expect(await publish(client, `${device.serial}/messages/json`, '{"tls.mqttjs": 1}')).toBe(0)
    await endAll(client)
    expect((await messagesOf(stack, device.uid)).length).toBe(before + 1)
  })

  it('takes mosquitto_pub --cafile', async () => {
    const before = (await messagesOf(stack, device.uid)).length
    const r = await run('mosquitto_pub', ['-h', 'localhost', '-p', String(stack.ports.mqtts), '--cafile', caFile, '-u', device.serial, '-P', device.mqttPassword ?? '',
      '-q', '1', '-t', `${device.serial}/messages/json`, '-m', '{"tls.mosquitto": 2}'])
    expect(r).toMatchObject({ code: 0, stderr: '' })
    await eventually(async () => (await messagesOf(stack, device.uid)).length === before + 1, 5000, 'the message stored')
  })

  it('serves MQTT over wss at /mqtt on the HTTPS port', async () => {
    const before = (await messagesOf(stack, device.uid)).length
    const client = await connectDevice(`wss://localhost:${httpsPort()}/mqtt`, device.serial, device.mqttPassword ?? '', { ca: ca.cert, version: 5 })
    expect(await publish(client, `${device.serial}/messages/json`, '{"tls.wss": 3}')).toBe(0)
    await endAll(client)
    expect((await messagesOf(stack, device.uid)).length).toBe(before + 1)
  })

  it('refuses a wrong password as in clear', async () => {
    await expect(connectDevice(mqttsUrl(), device.serial, 'wrong', { ca: ca.cert })).rejects.toThrow(/refused: 4/)
  })
})

describe('TLS versions', () => {
  // The client's own floor lowered (SECLEVEL=0): what refuses TLS 1.1 must be the service.
  it.each([['MQTTS', (): number => stack.ports.mqtts ?? 0], ['HTTPS', httpsPort]])('%s refuses TLS 1.1 and takes TLS 1.2 and 1.3', async (_name, port) => {
    const old = await sClient(port(), ['-tls1_1', '-cipher', 'DEFAULT@SECLEVEL=0'], caFile)
    expect(old.code).not.toBe(0)
    expect(old.stdout + old.stderr).toMatch(/protocol version|no protocols available|unsupported protocol/i)
    for (const [flag, version] of [['-tls1_2', 'TLSv1.2'], ['-tls1_3', 'TLSv1.3']]) {
      const r = await sClient(port(), [flag ?? ''], caFile)
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain(`New, ${version ?? ''}, Cipher is`)
      expect(r.stdout).toContain('Verify return code: 0 (ok)')
    }
  })
})
