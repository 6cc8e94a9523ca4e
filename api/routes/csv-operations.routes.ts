// The routes of the CSV operations (docs/operations.md#csv-operations): the request is read here into a
// CsvUpload (core/operations/csv/operation.ts) as it arrives, the file through core/operations/csv/read.ts, which
// stops at 10 MB; the kind checks the rest and creates the operation.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import multipart from '@fastify/multipart'
import type { OperationsService } from '../../core/operations/service.js'
import type { OperationKind } from '../../core/operations/kind.js'
import { FleetError, isFleetError } from '../../core/errors.js'
import { OPERATION_RIGHTS } from '../../core/operations/rights.js'
import { isCsvRefusal, MAX_CSV_BYTES, readCsv, type CsvRead } from '../../core/operations/csv/read.js'
import { DEFAULTS_PART_NAMES } from '../../core/operations/csv/defaults.js'
import type { CsvUpload } from '../../core/operations/csv/operation.js'
import { CompanyQuery, errors } from '../schemas/common.schema.js'
import { OperationRef } from '../schemas/operations.schema.js'

export interface CsvOperationsRoutesOptions { operations: OperationsService }

/** Media types of a raw CSV body (bulk edit: docs/api.md states application/octet-stream). */
const RAW_TYPES = ['application/octet-stream', 'text/csv', 'text/plain']

/** A JSON part larger than this is no set of default values. */
const MAX_DEFAULTS_BYTES = 64 * 1024

const isDefaultsPart = (name: string): boolean => (DEFAULTS_PART_NAMES as readonly string[]).includes(name)

const tooLarge = (): FleetError => new FleetError('file.too.large', [String(MAX_CSV_BYTES)])

/** Refuses a file the reader refused as too large at once: the rest of the request is not read. */
function refuseTooLarge (file: CsvRead): CsvRead {
  if (isCsvRefusal(file) && file.refused === 'file.too.large') throw tooLarge()
  return file
}

function checkedDefaults (text: string): string {
  if (Buffer.byteLength(text) > MAX_DEFAULTS_BYTES) throw new FleetError('request.invalid', ['defaultValues', `at most ${MAX_DEFAULTS_BYTES} bytes`])
  return text
}

/** The parts of a multipart request: the first part not named defaultValues or parameters is the CSV file. */
async function readMultipart (req: FastifyRequest): Promise<CsvUpload> {
  let file: CsvRead | undefined
  let defaults: string | undefined
  for await (const part of req.parts()) {
    if (part.type === 'field') {
      // @fastify/multipart parses a field sent as application/json itself: its value is then the parsed object.
      const text = typeof part.value === 'string' ? part.value : JSON.stringify(part.value)
      if (isDefaultsPart(part.fieldname)) defaults ??= checkedDefaults(text)
      else if (file === undefined) {
        if (part.valueTruncated) throw tooLarge()
        file = refuseTooLarge(await readCsv([Buffer.from(text, 'utf8')]))
      }
      continue
    }
    if (isDefaultsPart(part.fieldname)) {
      defaults ??= checkedDefaults((await part.toBuffer()).toString('utf8'))
    } else if (file === undefined) file = refuseTooLarge(await readCsv(part.file))
    else part.file.resume() // a second file is not read
  }
  return { file: file ?? { refused: 'file.unreadable', params: ['the request has no CSV part'] }, defaults }
}

/** The upload of a request; multipart errors of the transport become the codes of set F. */
async function readUpload (req: FastifyRequest, kind: OperationKind): Promise<CsvUpload> {
  try {
    if (req.isMultipart()) return await readMultipart(req)
    if (kind.route.upload === 'multipart-or-raw' && RAW_TYPES.includes(req.headers['content-type']?.split(';')[0]?.trim().toLowerCase() ?? '')) {
      return { file: refuseTooLarge(await readCsv(req.raw)) }
    }
  } catch (err) {
    if (isFleetError(err)) throw err
    const code = (err as { code?: unknown }).code
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge()
    // A part sent as application/json that is no JSON: the JSON part (a CSV part is not declared JSON).
    if (code === 'FST_INVALID_JSON_FIELD_ERROR') throw new FleetError('request.invalid', ['defaultValues', 'the part is not JSON'])
    throw new FleetError('file.unreadable', [String((err as Error).message)])
  }
  const expected = kind.route.upload === 'multipart-or-raw' ? 'multipart/form-data or application/octet-stream' : 'multipart/form-data'
  throw new FleetError('file.unreadable', [`the request is ${expected} (the CSV file in a part of any name)`])
}

const csvOperationsRoutes: FastifyPluginAsync<CsvOperationsRoutesOptions> = async (app, { operations }) => {
  // The file and the JSON part are read by the route, not buffered by a body parser: only these media types reach it.
  app.removeAllContentTypeParsers()
  await app.register(multipart, {
    limits: { fileSize: MAX_CSV_BYTES + 1, fieldSize: MAX_CSV_BYTES + 1, files: 4, fields: 8, parts: 8, headerPairs: 100 }
  })
  // A raw CSV body is read from the request itself, as it arrives (the parser leaves it unread).
  app.addContentTypeParser(RAW_TYPES, (_req, _payload, done) => { done(null) })
  app.addContentTypeParser('*', (_req, _payload, done) => { done(null) })

  for (const kind of operations.kinds) {
    if (kind.route.upload === undefined || kind.route.upload === 'zip') continue
    const content: Record<string, { schema: Record<string, unknown> }> = {
      'multipart/form-data': { schema: { description: 'The CSV file (a part of any name) and an optional JSON part named defaultValues or parameters' } }
    }
    if (kind.route.upload === 'multipart-or-raw') content['application/octet-stream'] = { schema: { description: 'The CSV file itself' } }
    app.post(kind.route.path, {
      config: { right: OPERATION_RIGHTS[kind.type] },
      schema: {
        tags: ['operations'],
        summary: kind.route.summary,
        description: `${kind.route.description} Answers the uid of the created operation at once; follow it with GET /api/v1/operations/{uid}, its tasks, and GET /api/v1/operations/{uid}/file for the failed rows once it is FINISHED.`,
        querystring: CompanyQuery,
        body: { content },
        response: { 200: OperationRef, ...errors }
      }
    }, async (req) => {
      const upload = await readUpload(req, kind)
      return await operations.create(kind, req.access, req.actor, upload)
    })
  }
}

export default csvOperationsRoutes
