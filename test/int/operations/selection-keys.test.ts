// A selection key the service does not know is refused with selection.invalid and creates no operation
// (docs/operations.md#bulk-operations): left out, it would select more than meant; a label operation without any
// selection labels every system of the company.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../../helpers/stack.js'
import { uniq } from '../../helpers/factories.js'
import { expectError, type Json } from '../../helpers/systems.js'
import { countOperations, createSystems, labelsOf, postDelete, postLabel } from '../../helpers/operations.js'

let stack: Stack
let systems: string[]

beforeAll(async () => {
  stack = await startStack()
  systems = await createSystems(stack, 2, uniq('sel'))
})
afterAll(async () => { await stack?.close() })

async function expectRefused (request: () => Promise<Parameters<typeof expectError>[0]>, field: string): Promise<void> {
  const before = await countOperations(stack)
  const body = expectError(await request(), 'selection.invalid')
  expect(body.errorParameters[0]).toBe(field)
  expect(await countOperations(stack)).toBe(before)
}

describe('unknown selection keys', () => {
  it.each<[string, Json, string]>([
    ['another operation\'s selection', { systems: { uids: ['x'] } }, 'systems'],
    ['a uids list at top level', { uids: ['x'] }, 'uids'],
    ['a misspelt criteria field', { criteria: { labelz: ['x'] } }, 'criteria.labelz'],
    ['an unknown identifier kind', { identifiers: { serial: ['x'] } }, 'identifiers.serial']
  ])('label: %s is refused, and no system is labelled', async (_, selection, field) => {
    const tag = uniq('nolabel')
    await expectRefused(async () => await postLabel(stack, { labels: { add: [tag] }, ...selection }), field)
    for (const uid of systems) expect(await labelsOf(stack, uid)).not.toContain(tag)
  })

  it('the other operations read criteria with the same parser: a misspelt field is refused', async () => {
    await expectRefused(async () => await postDelete(stack, { systems: { criteria: { nmae: 'sel-1' } } }), 'criteria.nmae')
  })
})
