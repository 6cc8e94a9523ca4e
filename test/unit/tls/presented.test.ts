import { X509Certificate } from 'node:crypto'
import type { DetailedPeerCertificate } from 'node:tls'
import { beforeAll, describe, expect, it } from 'vitest'
import { presentedCertificate, type PeerSocket } from '../../../ingest/tls/presented.js'
import { makeCa, makeDeviceCert, type Issued } from '../../helpers/pki.js'

/** What Node's TLS socket answers after a handshake in which `leaf` came with the chain `above` (issuer first). */
function socketOf (leaf: Issued | undefined, above: Issued[], authorized: boolean, authorizationError?: string): PeerSocket {
  const detailed = (certs: Issued[]): DetailedPeerCertificate => {
    const nodes = certs.map((c) => ({ raw: Buffer.from(c.x509.rawData) }) as unknown as DetailedPeerCertificate)
    nodes.forEach((n, i) => { n.issuerCertificate = nodes[i + 1] ?? n }) // a root is its own issuer
    return nodes[0] ?? ({} as DetailedPeerCertificate)
  }
  return {
    authorized,
    authorizationError: authorizationError as unknown as Error,
    getPeerX509Certificate: () => leaf === undefined ? undefined : new X509Certificate(leaf.cert),
    getPeerCertificate: (() => leaf === undefined ? {} : detailed([leaf, ...above])) as PeerSocket['getPeerCertificate']
  }
}

let root: Issued
let intermediate: Issued
let device: Issued

beforeAll(async () => {
  root = await makeCa('Root CA')
  intermediate = await makeCa('Fleet devices, "EU" = 1', { issuer: root, key: 'RSA-2048' })
  device = await makeDeviceCert(intermediate, 'SN-0001, O=Evil', { dns: ['sn-0001.devices.example'], ip: ['10.0.0.7', 'fd00::7'], uri: ['urn:dev:imei:359377060000006'], email: ['ops@example.com'] })
})

describe('presentedCertificate', () => {
  it('answers undefined when the client presented no certificate', () => {
    expect(presentedCertificate(socketOf(undefined, [], false, 'UNABLE_TO_GET_ISSUER_CERT'))).toBeUndefined()
  })

  it('maps a verified certificate: SHA-256 of its DER, its CN and SAN values as encoded, its chain up to the root', () => {
    const p = presentedCertificate(socketOf(device, [intermediate, root], true))
    expect(p).toEqual({
      fingerprint: device.fingerprint,
      verified: true,
      issuers: [intermediate.fingerprint, root.fingerprint],
      // A comma in the CN stays in it: no naive split of "CN=..., O=..."
      commonName: 'SN-0001, O=Evil',
      altNames: ['sn-0001.devices.example', '10.0.0.7', 'fd00::7', 'urn:dev:imei:359377060000006', 'ops@example.com'],
      notBefore: device.x509.notBefore.getTime(),
      notAfter: device.x509.notAfter.getTime()
    })
    expect(p?.fingerprint).toMatch(/^[0-9a-f]{64}$/)
  })

  it('gives an unverified certificate its reason and no issuers (what the device sent is no CA\'s word)', () => {
    const p = presentedCertificate(socketOf(device, [intermediate, root], false, 'CERT_HAS_EXPIRED'))
    expect(p).toMatchObject({ verified: false, error: 'CERT_HAS_EXPIRED', issuers: [], commonName: 'SN-0001, O=Evil' })
  })

  it('stops the chain at a certificate that did not sign the one below it, however it is named', async () => {
    // Another CA carrying the intermediate's very name: Node would link it by name; its key signed nothing here.
    const impostor = await makeCa('Fleet devices, "EU" = 1', { issuer: root })
    expect(presentedCertificate(socketOf(device, [impostor, root], true))?.issuers).toEqual([])
    expect(presentedCertificate(socketOf(device, [intermediate, impostor], true))?.issuers).toEqual([intermediate.fingerprint])
  })

  it('reads a self-signed certificate without a CN', async () => {
    const selfSigned = await makeDeviceCert(undefined, '', { subject: { O: 'Acme', '2.5.4.5': 'SN-0001' } })
    const p = presentedCertificate(socketOf(selfSigned, [], false, 'DEPTH_ZERO_SELF_SIGNED_CERT'))
    expect(p).toEqual({ fingerprint: selfSigned.fingerprint, verified: false, error: 'DEPTH_ZERO_SELF_SIGNED_CERT', issuers: [], altNames: [], notBefore: selfSigned.x509.notBefore.getTime(), notAfter: selfSigned.x509.notAfter.getTime() })
  })
})
