// Plain-text tables for benchmark output: text columns left aligned, numbers right aligned.

export type Cell = string | number

function format (c: Cell): string {
  if (typeof c === 'string') return c
  if (Number.isNaN(c)) return '-'
  if (Number.isInteger(c)) return String(c)
  return c >= 100 ? c.toFixed(0) : c >= 10 ? c.toFixed(1) : c.toFixed(2)
}

export function table (headers: string[], rows: Cell[][]): string {
  const cells = rows.map((r) => r.map(format))
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]?.length ?? 0)))
  const numeric = headers.map((_, i) => rows.every((r) => typeof r[i] === 'number'))
  const line = (r: string[]): string => r.map((c, i) => numeric[i] === true ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n')
}
