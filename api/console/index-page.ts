// The console's one page: the shell (console/src/main.ts) renders everything; routes are in the hash.

/**
 * The Content-Security-Policy of every console file: scripts and styles of the console itself only (no inline script
 * or style attribute), API calls and the live stream's WebSocket to this origin, images of this origin (the company
 * picture) and blobs/data (the export download, uPlot), no frames, forms posting only to this origin (sign-in).
 */
export function consoleCsp (base: string | undefined): string {
  // The host of a parsed URL: no space, quote or semicolon can reach the header from a request.
  const host = base === undefined ? undefined : new URL(base).host
  const ws = host === undefined ? '' : ` ws://${host} wss://${host}`
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    `connect-src 'self'${ws}`,
    "font-src 'self'",
    "manifest-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'"
  ].join('; ')
}

export const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Fleet console</title>
    <link rel="stylesheet" href="app.css">
    <script type="module" src="app.js"></script>
  </head>
  <body>
    <noscript>The fleet console needs JavaScript.</noscript>
  </body>
</html>
`
