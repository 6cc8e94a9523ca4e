import { describe, expect, it } from 'vitest'
import { contextOptions, serverOptions } from '../../../ingest/tls/secure-context.js'

const material = { cert: 'CERT', key: 'KEY', clientCAs: ['CA-1', 'CA-2'], fingerprint: 'f' }

describe('the TLS listeners\' options', () => {
  it('ask for a client certificate without requiring one, TLS 1.2 at least', () => {
    expect(serverOptions(contextOptions(material, []))).toMatchObject({ minVersion: 'TLSv1.2', requestCert: true, rejectUnauthorized: false, cert: 'CERT', key: 'KEY' })
  })

  it('trust the file\'s CAs and the ones given beside, once each, and never Node\'s public CAs', () => {
    expect(contextOptions(material, ['CA-3', 'CA-1']).ca).toEqual(['CA-1', 'CA-2', 'CA-3'])
    // An empty list, not an absent one: Node falls back to its bundled public CAs only when `ca` is absent.
    expect(contextOptions({ ...material, clientCAs: [] }, []).ca).toEqual([])
  })
})
