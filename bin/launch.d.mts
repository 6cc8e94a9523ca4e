// Types of bin/launch.mjs (plain JavaScript: the launcher runs before TypeScript can be loaded).
export type BuildState = { build: 'current' } | { build: 'stale' | 'none', why: string }
export function buildState (root: string): BuildState
export function hasTsx (root: string): boolean
