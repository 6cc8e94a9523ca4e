// What a hawkBit controller's feedback makes of its task (docs/protocols/ddi.md#feedback-and-task-states): the device
// answer each execution and result gives, on a deployment and on a cancel.
import { describe, expect, it } from 'vitest'
import { ackOf, cancelAckOf } from '../../../ingest/ddi/ddi-controller.js'
import { EXECUTIONS, readFeedback, type Feedback } from '../../../ingest/ddi/ddi-json.js'

const fb = (execution: Feedback['execution'], finished: Feedback['finished'] = 'none', details: string | null = null): Feedback => ({ execution, finished, details })

describe('a deployment\'s feedback', () => {
  it('closed is OK, or ERROR with the details when the result is failure', () => {
    expect(ackOf('t', fb('closed', 'success', 'Update Installed.'))).toEqual({ uid: 't', status: 'OK', message: 'Update Installed.' })
    expect(ackOf('t', fb('closed', 'none'))).toEqual({ uid: 't', status: 'OK', message: null })
    expect(ackOf('t', fb('closed', 'failure', 'Checksum does not match'))).toEqual({ uid: 't', status: 'ERROR', message: 'Checksum does not match' })
    expect(ackOf('t', fb('closed', 'failure'))).toEqual({ uid: 't', status: 'ERROR', message: 'failure' })
  })

  it('canceled is CANCELLED whatever the result; rejected is ERROR', () => {
    for (const finished of ['none', 'success', 'failure'] as const) {
      expect(ackOf('t', fb('canceled', finished))).toEqual({ uid: 't', status: 'CANCELLED', message: 'canceled by the device' })
    }
    expect(ackOf('t', fb('canceled', 'none', 'user said no'))).toEqual({ uid: 't', status: 'CANCELLED', message: 'canceled by the device: user said no' })
    expect(ackOf('t', fb('rejected', 'none', 'no space'))).toEqual({ uid: 't', status: 'ERROR', message: 'rejected by the device: no space' })
  })

  it('every other execution keeps the task going', () => {
    for (const execution of EXECUTIONS.filter((e) => !['closed', 'canceled', 'rejected'].includes(e))) {
      expect(ackOf('t', fb(execution, 'success')), execution).toBeUndefined()
    }
  })

  it('reads SWUpdate\'s document to the same answer', () => {
    const read = readFeedback(Buffer.from(JSON.stringify({ id: '7', status: { execution: 'canceled', result: { finished: 'success' }, details: ['stopped', ' '] } })))
    expect(read.ok && ackOf('t', read.feedback)).toEqual({ uid: 't', status: 'CANCELLED', message: 'canceled by the device: stopped' })
  })
})

describe('a cancel\'s feedback', () => {
  it('closed (not failure) and canceled confirm it: CANCELLED', () => {
    expect(cancelAckOf('t', fb('closed', 'success'))).toEqual({ uid: 't', status: 'CANCELLED', message: 'canceled by the device' })
    expect(cancelAckOf('t', fb('closed', 'none', 'stopped'))).toEqual({ uid: 't', status: 'CANCELLED', message: 'canceled by the device: stopped' })
    expect(cancelAckOf('t', fb('canceled', 'failure'))).toEqual({ uid: 't', status: 'CANCELLED', message: 'canceled by the device' })
  })

  it('a refusal or a progress report leaves the install going', () => {
    expect(cancelAckOf('t', fb('closed', 'failure', 'already flashing'))).toBeUndefined()
    expect(cancelAckOf('t', fb('rejected'))).toBeUndefined()
    expect(cancelAckOf('t', fb('proceeding'))).toBeUndefined()
  })
})
