// The company picture (docs/api.md#users-and-companies: JPEG or PNG, at most 750 KB and 1024 px per side): shown from
// GET /company/{uid}/picture/normal (fetched with the token, shown as a blob), replaced by POST /company/{uid}/picture.
import { h, replace } from '../../lib/dom.js'
import { ApiError } from '../../lib/api.js'
import type { PageContext } from '../../page.js'

export function picturePanel (ctx: PageContext, companyUid: string, hasPicture: boolean): { element: HTMLElement, dispose: () => void } {
  const base = `/api/v1/company/${encodeURIComponent(companyUid)}/picture`
  const shown = h('div', { class: 'company-picture' })
  let url: string | undefined
  const show = (): void => {
    ctx.api.blob(`${base}/normal`).then((blob) => {
      if (url !== undefined) URL.revokeObjectURL(url)
      url = URL.createObjectURL(blob)
      replace(shown, h('img', { src: url, alt: `Picture of ${ctx.session.company.name}` }))
    }).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 'company.file.not.found') replace(shown, h('p', { class: 'empty' }, 'No picture yet.'))
      else ctx.notify(err as Error)
    })
  }
  if (hasPicture) show()
  else replace(shown, h('p', { class: 'empty' }, 'No picture yet.'))

  const file = h('input', { type: 'file', accept: 'image/png,image/jpeg' })
  const upload = h('button', { type: 'submit', class: 'primary' }, 'Upload picture')
  const form = h('form', { class: 'form-row' }, h('label', {}, 'New picture (JPEG or PNG, at most 750 KB)', file), upload)
  form.addEventListener('submit', (e) => {
    e.preventDefault()
    const chosen = file.files?.[0]
    if (chosen === undefined) { ctx.notify('Choose a picture first.', 'error'); return }
    upload.disabled = true
    ctx.api.post(base, chosen).then(() => {
      ctx.notify('The picture is saved.')
      form.reset()
      show()
    }).catch((err: unknown) => { ctx.notify(err as Error) }).finally(() => { upload.disabled = false })
  })
  return {
    element: h('section', { class: 'card', 'aria-labelledby': 'picture-title' }, h('h2', { id: 'picture-title' }, 'Picture'), shown, form),
    dispose: () => { if (url !== undefined) URL.revokeObjectURL(url) }
  }
}
