// libcoap's example programs from Debian (package libcoap3-bin: coap-client-notls, coap-server-notls), for interop
// tests of protocols/coap: plain CoAP over UDP on 127.0.0.1, each server process on a port of its own, stopped by
// its pid.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import dgram from 'node:dgram'
import { once } from 'node:events'
import { promisify } from 'node:util'
import { freePort } from '../../helpers/child.js'

export const COAP_CLIENT = '/usr/bin/coap-client-notls'
export const COAP_SERVER = '/usr/bin/coap-server-notls'

const run = promisify(execFile)

/**
 * Runs coap-client-notls to completion and answers what it printed. `-B 10` bounds its own wait for an answer,
 * the timeout the process (both well above what a loopback exchange takes).
 */
export async function coapClient (args: string[]): Promise<{ stdout: string, stderr: string }> {
  return await run(COAP_CLIENT, ['-B', '10', ...args], { timeout: 20_000, encoding: 'utf8' })
}

export interface RunningClient {
  child: ChildProcess
  /** Everything printed so far. */
  output: () => string
  /** Resolves once the output contains `text`. */
  printed: (text: string) => Promise<void>
  stop: () => Promise<void>
}

/** Starts coap-client-notls for a long-running exchange (observe); the test stops it on an event. */
export function startClient (args: string[]): RunningClient {
  const child = spawn(COAP_CLIENT, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  const waiting: Array<{ text: string, resolve: () => void }> = []
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
    for (const w of waiting.filter((x) => out.includes(x.text))) w.resolve()
  })
  const exited = once(child, 'exit')
  return {
    child,
    output: () => out,
    printed: async (text) => { if (!out.includes(text)) await new Promise<void>((resolve) => waiting.push({ text, resolve })) },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    }
  }
}

/** A port free for UDP and TCP (coap-server-notls binds both) at the time of asking. */
export async function freeCoapPort (): Promise<number> {
  for (;;) {
    const port = await freePort()
    const socket = dgram.createSocket('udp4')
    const ok = await new Promise<boolean>((resolve) => {
      socket.once('error', () => { resolve(false) })
      socket.bind(port, '127.0.0.1', () => { resolve(true) })
    })
    await new Promise<void>((resolve) => { socket.close(() => { resolve() }) })
    if (ok) return port
  }
}

export interface CoapServerProcess { port: number, child: ChildProcess, stop: () => Promise<void> }

/**
 * coap-server-notls on 127.0.0.1 with `-d 10`: a PUT to an unknown path creates it (up to ten). `extra` adds
 * options, e.g. `-l 1` to lose its first datagram.
 */
export async function startCoapServer (extra: string[] = []): Promise<CoapServerProcess> {
  const port = await freeCoapPort()
  const child = spawn(COAP_SERVER, ['-A', '127.0.0.1', '-p', String(port), '-d', '10', ...extra], { stdio: 'ignore' })
  const exited = once(child, 'exit')
  return {
    port,
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    }
  }
}
