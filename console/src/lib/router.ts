// Hash routes (the service serves one page): `#/operations/<uid>?x=1` matched against the patterns of
// pages/index.ts, `:name` segments and the hash's query becoming the page's params.

export interface Match<R> { route: R, params: Record<string, string> }

export function matchRoute<R extends { pattern: string }> (routes: readonly R[], hash: string): Match<R> | undefined {
  const raw = hash.replace(/^#/, '')
  const at = raw.indexOf('?')
  const path = at === -1 ? raw : raw.slice(0, at)
  const query = at === -1 ? '' : raw.slice(at + 1)
  const parts = path.split('/').filter((p) => p !== '')
  for (const route of routes) {
    const pattern = route.pattern.split('/').filter((p) => p !== '')
    if (pattern.length !== parts.length) continue
    const params: Record<string, string> = Object.fromEntries(new URLSearchParams(query))
    const ok = pattern.every((p, i) => {
      const part = parts[i] ?? ''
      if (p.startsWith(':')) {
        try { params[p.slice(1)] = decodeURIComponent(part) } catch { return false }
        return true
      }
      return p === part
    })
    if (ok) return { route, params }
  }
  return undefined
}

/** The path of the hash, for the menu's current item: `#/systems/x?y` → `/systems/x`. */
export const hashPath = (hash: string): string => hash.replace(/^#/, '').replace(/\?.*$/, '')
