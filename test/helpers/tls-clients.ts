// Real TLS clients for the TLS listener tests: command-line tools (curl, openssl, mosquitto_pub) run to their end,
// and a Node handshake that tells which certificate the server showed.
import { execFile } from 'node:child_process'
import { connect, type ConnectionOptions } from 'node:tls'

export interface RunResult { code: number, stdout: string, stderr: string }

/** Runs a command to its end (no shell, stdin closed) and answers its exit code and output; never throws on a code. */
export async function run (command: string, args: string[], timeoutMs = 20_000): Promise<RunResult> {
  return await new Promise((resolve) => {
    const child = execFile(command, args, { timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1
      resolve({ code, stdout, stderr })
    })
    child.stdin?.end()
  })
}

/** `openssl s_client` to 127.0.0.1:port with these options (e.g. -tls1_2); answers its exit code and output. */
export async function sClient (port: number, options: string[], caFile?: string): Promise<RunResult> {
  return await run('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', 'localhost', ...(caFile === undefined ? [] : ['-CAfile', caFile]), ...options])
}

/** Completes a handshake and answers the SHA-256 fingerprint (lowercase hex) of the certificate the server showed. */
export async function serverFingerprint (port: number, options: ConnectionOptions = {}): Promise<string> {
  return await new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', ...options }, () => {
      const cert = socket.getPeerX509Certificate()
      socket.destroy()
      if (cert === undefined) reject(new Error('no server certificate')); else resolve(cert.fingerprint256.replace(/:/g, '').toLowerCase())
    })
    socket.once('error', reject)
  })
}
