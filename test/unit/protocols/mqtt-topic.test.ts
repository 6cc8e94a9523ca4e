// protocols/mqtt/topic.ts: topic filter matching (MQTT 3.1.1 §4.7).
import { describe, expect, it } from 'vitest'
import { topicMatches } from '../../../protocols/mqtt/topic.js'

describe('topicMatches', () => {
  it.each([
    ['SN1/tasks/json', 'SN1/tasks/json', true],
    ['SN1/#', 'SN1/tasks/json', true],
    ['SN1/+/json', 'SN1/tasks/json', true],
    ['SN1/tasks/#', 'SN1/tasks/json', true],
    ['SN1/tasks/json/#', 'SN1/tasks/json', true], // '#' includes the parent level
    ['#', 'SN1/tasks/json', true],
    ['+/tasks/json', 'SN1/tasks/json', true],
    ['SN1/+', 'SN1/tasks/json', false],
    ['SN1/tasks', 'SN1/tasks/json', false],
    ['SN1/tasks/json/x', 'SN1/tasks/json', false],
    ['SN10/#', 'SN1/tasks/json', false],
    ['SN1/#/json', 'SN1/tasks/json', false], // '#' only last
    ['#', '$fleet/consumed', false], // §4.7.2
    ['+/consumed', '$fleet/consumed', false],
    ['$fleet/consumed', '$fleet/consumed', true]
  ])('%s matches %s: %s', (filter, topic, expected) => {
    expect(topicMatches(filter, topic)).toBe(expected)
  })
})
