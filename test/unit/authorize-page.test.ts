import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { PAGE_STYLE_SOURCE, signInPage } from '../../api/routes/authorize-page.js'

const fields = (clientId: string): Parameters<typeof signInPage>[0] => ({ response_type: 'code', client_id: clientId, redirect_uri: 'https://app.example/cb' })

describe('the sign-in page', () => {
  it('speaks of signing in to the console when the client is the console, of acting on the user\'s behalf otherwise', () => {
    const own = signInPage(fields('fleet-console'), { clientName: 'fleet-console' })
    expect(own).toContain('<h1>Sign in to the console</h1>')
    expect(own).not.toContain('on your behalf')
    const other = signInPage(fields('acme-app'), { clientName: 'Acme <app>' })
    expect(other).toContain('Acme &#60;app&#62; asks to act on your behalf.')
  })

  it('has one inline style, whose hash a Content-Security-Policy can allow', () => {
    const styles = [...signInPage(fields('fleet-console'), { clientName: 'x' }).matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] ?? '')
    expect(styles).toHaveLength(1)
    expect(PAGE_STYLE_SOURCE).toBe(`'sha256-${createHash('sha256').update(styles[0] ?? '').digest('base64')}'`)
  })
})
