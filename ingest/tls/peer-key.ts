// A TLS server reports a connection twice: as the TCP socket when it is accepted ('connection') and as the TLS socket
// once its handshake is done ('secureConnection'). Both have the same remote address and port, which is how the
// listeners pair them (the TCP socket's place in the login gate, the handshakes still open at close).

/** The key of a connection, the same for its TCP and its TLS socket. */
export const peerKey = (s: { remoteAddress?: string | undefined, remotePort?: number | undefined }): string =>
  `${s.remoteAddress ?? ''}|${s.remotePort ?? 0}`
