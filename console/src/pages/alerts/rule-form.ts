// The form that creates an alert rule (docs/console.md, Alerts): a name, one condition on a data id's last value
// (operator and value), stateful or not, and the alert's message. A field the service refuses (alert.rule.invalid
// names it) is marked and focused, with the service's sentence in the dialog.
import { ApiError } from '../../lib/api.js'
import { h } from '../../lib/dom.js'
import { checkbox, field, openFormDialog } from '../../lib/form-dialog.js'
import type { PageContext } from '../../page.js'
import { FORM_OPERATORS, ruleBody, ruleFormField, type RuleFormField } from './rule-text.js'
import type { AlertRule } from './types.js'

const OPERATOR_TEXT: Record<string, string> = {
  GT: 'greater than', GTE: 'greater than or equal to', LT: 'less than', LTE: 'less than or equal to', EQUALS: 'equal to', NOT_EQUALS: 'not equal to'
}

/** Opens the dialog; `created` gets the rule the service answered. */
export function openRuleForm (ctx: PageContext, created: (rule: AlertRule) => void): void {
  const name = h('input', { type: 'text', required: true, maxlength: 1000, autocomplete: 'off' })
  const dataId = h('input', { type: 'text', required: true, placeholder: 'engine.temp', autocomplete: 'off' })
  const operator = h('select', {}, ...Object.entries(FORM_OPERATORS).map(([op, sign]) => h('option', { value: op }, `${sign} (${OPERATOR_TEXT[op] ?? op})`)))
  const value = h('input', { type: 'text', required: true, placeholder: '90' })
  const stateful = checkbox('One alert while the condition holds, closed when it stops (unticked: an alert each time it becomes true)', true)
  const message = h('input', { type: 'text', maxlength: 1000, autocomplete: 'off' })
  const controls: Record<RuleFormField, HTMLElement> = { name, dataId, operator, value, stateful: stateful.input, message }

  openFormDialog({
    title: 'New alert rule',
    body: [
      field('Name', name),
      h('div', { class: 'form-row' },
        field('Data id', dataId, 'The data checked, as its devices name it.'),
        field('Operator', operator),
        field('Value', value, 'A number, or a text (true and false match a boolean).')),
      stateful.el,
      field('Message', message, 'The alert\'s text, also in its e-mails.')
    ],
    submitLabel: 'Create rule',
    submit: async () => {
      for (const c of Object.values(controls)) c.removeAttribute('aria-invalid')
      const body = ruleBody({ name: name.value, dataId: dataId.value, operator: operator.value, value: value.value, stateful: stateful.input.checked, message: message.value })
      try {
        const rule = await ctx.api.post<AlertRule>('/api/v2/alertrules', body)
        ctx.notify(`The rule ${rule.name} is created.`)
        created(rule)
        return true
      } catch (err) {
        const wrong = err instanceof ApiError && err.code === 'alert.rule.invalid' ? ruleFormField(err.params[0] ?? '') : null
        if (wrong !== null) {
          controls[wrong].setAttribute('aria-invalid', 'true')
          controls[wrong].focus()
        }
        throw err
      }
    }
  })
}
