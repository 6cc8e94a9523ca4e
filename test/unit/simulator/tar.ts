// A ustar archive built in memory, for the simulated M3DA agent's update packages (a tar whose root holds a
// `Manifest`, docs/protocols/m3da.md#software-updates).

const BLOCK = 512

function header (name: string, size: number): Buffer {
  const h = Buffer.alloc(BLOCK)
  const field = (at: number, len: number, value: string): void => { h.write(value, at, len, 'latin1') }
  field(0, 100, name)
  field(100, 8, '0000644\0')
  field(108, 8, '0000000\0')
  field(116, 8, '0000000\0')
  field(124, 12, size.toString(8).padStart(11, '0') + '\0')
  field(136, 12, '00000000000\0')
  field(148, 8, '        ')
  field(156, 1, '0')
  field(257, 8, 'ustar\x0000')
  let sum = 0
  for (const b of h) sum += b
  field(148, 8, sum.toString(8).padStart(6, '0') + '\0 ')
  return h
}

/** The entries in order, each padded to 512 bytes, then the two zero blocks of the end. */
export function tarOf (entries: ReadonlyArray<{ name: string, content: string | Buffer }>): Buffer {
  const parts: Buffer[] = []
  for (const e of entries) {
    const content = Buffer.isBuffer(e.content) ? e.content : Buffer.from(e.content)
    parts.push(header(e.name, content.length), content, Buffer.alloc((BLOCK - (content.length % BLOCK)) % BLOCK))
  }
  parts.push(Buffer.alloc(2 * BLOCK))
  return Buffer.concat(parts)
}

/** An update package: the Manifest installing each component at its version (removing those without one). */
export function updatePackage (components: ReadonlyArray<{ name: string, version?: string }>, extra: Buffer = Buffer.alloc(0)): Buffer {
  const listed = components.map((c) => `    { name = "${c.name}", location = "${c.name}"${c.version === undefined ? '' : `, version = "${c.version}"`}, depends = { ["lua"] = "~>5.1" } },`)
  const manifest = `-- update package\n{\n  version = "1.0",\n  components = {\n${listed.join('\n')}\n  }\n}\n`
  return tarOf([{ name: 'Manifest', content: manifest }, ...components.map((c) => ({ name: `${c.name}/payload.bin`, content: extra }))])
}
