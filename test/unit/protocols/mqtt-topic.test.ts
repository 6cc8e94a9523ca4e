// protocols/mqtt/topic.ts: topic filter matching (MQTT 3.1.1 §4.7).
import { describe, expect, it } from 'vitest'
import { deviceTopic, ownsTopic, publishTopicKind, topicMatches, wantsTasks } from '../../../protocols/mqtt/topic.js'

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

describe('device topics (conventions.md §Devices)', () => {
  it('spells the three topics of a login', () => {
    expect(['messages', 'acks', 'tasks'].map((k) => deviceTopic('SN1', k as 'messages' | 'acks' | 'tasks')))
      .toEqual(['SN1/messages/json', 'SN1/acks/json', 'SN1/tasks/json'])
  })

  it.each([
    ['SN1/messages/json', 'messages'],
    ['SN1/acks/json', 'acks'],
    ['SN1/tasks/json', 'other'], // the device's to receive, not to publish
    ['SN1/messages/xml', 'other'],
    ['SN2/messages/json', 'foreign'],
    ['SN1x/messages/json', 'foreign'],
    ['messages/json', 'foreign'],
    ['SN1', 'foreign']
  ])('a publish on %s is %s', (topic, kind) => {
    expect(publishTopicKind('SN1', topic)).toBe(kind)
  })

  it('owns filters under its own login only', () => {
    expect(ownsTopic('SN1', 'SN1/#')).toBe(true)
    expect(ownsTopic('SN1', '#')).toBe(false)
    expect(ownsTopic('SN1', '+/tasks/json')).toBe(false)
    expect(ownsTopic('SN1', 'SN10/tasks/json')).toBe(false)
  })

  it('wants tasks when a filter delivers its tasks topic', () => {
    expect(wantsTasks('SN1', ['SN1/messages/json'])).toBe(false)
    expect(wantsTasks('SN1', ['SN1/messages/json', 'SN1/+/json'])).toBe(true)
    expect(wantsTasks('SN1', new Set(['SN1/#']))).toBe(true)
    expect(wantsTasks('SN1', [])).toBe(false)
  })
})
