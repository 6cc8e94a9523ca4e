// A modal form in a <dialog> (keyboard usable): it takes the focus, Escape or Cancel closes it, Enter
// submits. `submit` runs the action: it answers true to close, false to stay (e.g. a value to correct), and an error
// it throws is shown in the dialog and stays there until the next try.
import { h } from './dom.js'
import './form-dialog.css'

export interface FormDialogOptions {
  title: string
  /** The fields and explanations of the form. */
  body: Array<Node | string>
  submitLabel: string
  /** A destructive action shows its button in the error colour. */
  danger?: boolean
  submit: () => Promise<boolean>
}

let counter = 0

export function openFormDialog (opts: FormDialogOptions): HTMLDialogElement {
  const id = `form-dialog-${++counter}`
  const error = h('p', { class: 'form-dialog-error', role: 'alert' })
  const submitButton = h('button', { type: 'submit', class: opts.danger === true ? 'danger' : 'primary' }, opts.submitLabel)
  const cancel = h('button', { type: 'button' }, 'Cancel')
  const form = h('form', { method: 'dialog', class: 'form-dialog-form' },
    h('h2', { id }, opts.title), ...opts.body, error, h('div', { class: 'form-dialog-buttons' }, cancel, submitButton))
  const dialog = h('dialog', { class: 'form-dialog', 'aria-labelledby': id }, form)
  cancel.addEventListener('click', () => { dialog.close() })
  dialog.addEventListener('close', () => { dialog.remove() })
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    submitButton.disabled = true
    error.textContent = ''
    opts.submit().then((done) => {
      if (done) dialog.close()
    }, (err: unknown) => {
      error.textContent = (err as { sentence?: string }).sentence ?? (err instanceof Error ? err.message : String(err))
    }).finally(() => { submitButton.disabled = false })
  })
  document.body.append(dialog)
  dialog.showModal()
  const first = form.querySelector<HTMLElement>('input, select, textarea')
  ;(first ?? submitButton).focus()
  return dialog
}

/** A labelled field: the label wraps its control, so the control's accessible name is the label's text. */
export function field (label: string, control: HTMLElement, hint?: string): HTMLElement {
  return h('label', { class: 'form-field' }, h('span', { class: 'form-field-label' }, label), control,
    hint === undefined ? null : h('small', { class: 'form-field-hint' }, hint))
}

/** A checkbox with its label after it. */
export function checkbox (label: string, checked: boolean): { el: HTMLElement, input: HTMLInputElement } {
  const input = h('input', { type: 'checkbox', checked })
  return { el: h('label', { class: 'form-check' }, input, ' ', label), input }
}
