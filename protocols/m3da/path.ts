// Message paths (docs/protocols/m3da.md): dot-separated segments, the first one the asset id; empty segments are
// dropped, so "a..b", ".a.b" and "a.b." all mean "a.b".

export const normalisePath = (path: string): string =>
  path.startsWith('.') || path.endsWith('.') || path.includes('..') ? path.split('.').filter(s => s !== '').join('.') : path
