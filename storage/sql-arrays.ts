// PostgreSQL array literals for the parameters of the batch statements (`unnest($1::text[], ...)`,
// docs/architecture.md#storage). node-postgres turns a JavaScript array into a literal itself, quoting and escaping
// every element with two regular expressions and a new string each: for the ingest's batches of thousands of points
// that was about a twentieth of the service's CPU and much of its garbage (bench ingest profile). Here an element that
// needs no quoting (uids, data ids, numbers: nearly all of them) is written as it is.

/** Characters an unquoted array element may hold: none of `{}",\`, whitespace or anything else PostgreSQL reads. */
const PLAIN = /^[A-Za-z0-9_.:@+\-/]+$/

function textElement (s: string): string {
  // NULL unquoted would be the null value; the empty string needs quotes too.
  if (PLAIN.test(s) && !(s.length === 4 && s.toUpperCase() === 'NULL')) return s
  return `"${s.replace(/["\\]/g, '\\$&')}"`
}

/** `{a,b,NULL}` for a text[] parameter. */
export function textArray (values: ReadonlyArray<string | null>): string {
  let out = '{'
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (i > 0) out += ','
    out += v === null || v === undefined ? 'NULL' : textElement(v)
  }
  return out + '}'
}

/**
 * `{1,2.5,NULL}` for an int8[], int4[] or float8[] parameter. Numbers print as JavaScript prints them, which
 * PostgreSQL reads back exactly ("1e+21", "NaN", "Infinity" included); integers must be safe integers for int8.
 */
export function numberArray (values: ReadonlyArray<number | null>): string {
  let out = '{'
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (i > 0) out += ','
    out += v === null || v === undefined ? 'NULL' : String(v)
  }
  return out + '}'
}

/** `{t,f,NULL}` for a bool[] parameter. */
export function boolArray (values: ReadonlyArray<boolean | null>): string {
  let out = '{'
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    if (i > 0) out += ','
    out += v === null || v === undefined ? 'NULL' : v ? 't' : 'f'
  }
  return out + '}'
}
