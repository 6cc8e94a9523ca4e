// `fleet certs dev --serial <sn> [--out <dir>]` (docs/cli.md#fleet-certs-dev): the certificates to try the TLS
// listeners and certificate logins on one machine, a development CA, a server certificate for localhost and one
// device's certificate. Nothing of it is for production: the CA's key lies beside its certificate.
import { access, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { StartFailure } from './start-failure.js'
import { developmentSet } from './pki.js'

export const CERTS_USAGE = 'usage: fleet certs dev --serial <serial number> [--out <dir>]'

// X.520's upper bound of a common name.
const MAX_CN = 64

function parse (args: string[]): { serial: string, out: string } {
  const [action, ...rest] = args
  if (action !== 'dev') throw new StartFailure(CERTS_USAGE)
  let serial: string | undefined
  let out = './certs'
  for (let i = 0; i < rest.length; i += 2) {
    const [flag, value] = [rest[i], rest[i + 1]]
    if (value === undefined || value.startsWith('--')) throw new StartFailure(CERTS_USAGE)
    if (flag === '--serial') serial = value
    else if (flag === '--out') out = value
    else throw new StartFailure(`unknown option "${flag ?? ''}": ${CERTS_USAGE}`)
  }
  if (serial === undefined || serial.trim() === '') throw new StartFailure(`--serial is needed (the device's gateway serial number, its certificate's CN): ${CERTS_USAGE}`)
  if (serial.length > MAX_CN) throw new StartFailure(`--serial must be at most ${MAX_CN} characters (a certificate's common name)`)
  return { serial, out }
}

const exists = async (path: string): Promise<boolean> => await access(path).then(() => true, () => false)

/** Writes the set and answers what to print. */
export async function certsCommand (args: string[]): Promise<string> {
  const { serial, out } = parse(args)
  const { ca, server, device } = await developmentSet(serial)
  const files: Array<[string, string, number]> = [
    ['ca.pem', ca.cert, 0o644], ['ca-key.pem', ca.key, 0o600],
    ['server.pem', server.cert, 0o644], ['server-key.pem', server.key, 0o600],
    ['device.pem', device.cert, 0o644], ['device-key.pem', device.key, 0o600]
  ]
  // All refused before any is written: a half-replaced set would pair a new key with an old certificate.
  for (const [name] of files) {
    if (await exists(join(out, name))) throw new StartFailure(`${join(out, name)} exists already: fleet certs dev overwrites nothing (remove the files, or give another --out)`)
  }
  await mkdir(out, { recursive: true })
  // 'wx': a file that appeared meanwhile is not overwritten either; the mode is the one a new file is created with.
  for (const [name, text, mode] of files) await writeFile(join(out, name), text, { flag: 'wx', mode })
  const p = (name: string): string => join(out, name)
  return [
    `wrote ${files.map(([name]) => p(name)).join(', ')}`,
    `device certificate: CN=${serial}, SHA-256 fingerprint ${device.fingerprint}`,
    'serve MQTTS on 8883 and HTTPS on 8443 with it:',
    `  TLS_CERT_FILE=${p('server.pem')} TLS_KEY_FILE=${p('server-key.pem')} TLS_CLIENT_CA_FILE=${p('ca.pem')} npx fleet serve`,
    'then, for instance:',
    `  curl --cacert ${p('ca.pem')} https://localhost:8443/health`,
    `  mosquitto_pub -h localhost -p 8883 --cafile ${p('ca.pem')} --cert ${p('device.pem')} --key ${p('device-key.pem')} -t ${serial}/messages/json -m '{"temperature": 21.5}'`
  ].join('\n')
}
