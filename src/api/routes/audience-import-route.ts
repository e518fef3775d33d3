import { rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { importAudience, type AudienceImportOutcome } from '../../app/audiences.js';
import { audienceTarget } from '../../app/audiences-context.js';
import { checkAudienceName } from '../../audiences/audience-name.js';
import { SPEC_FORMATS } from '../../campaigns/spec/spec-formats.js';
import { isAppError } from '../../errors/app-error.js';
import { makeDirectory } from '../../files/make-directory.js';
import { registerApiRoute } from '../api-route.js';
import type { ApiServices } from '../api-services.js';
import type { DocumentedRoute } from '../openapi.js';
import { ProblemsError } from '../problem.js';
import { audienceImportSchema, audienceNameParams, audienceTargetFields } from '../schemas/audience-schemas.js';
import { problemAnswers } from '../schemas/problem-answers.js';
import { readCsvUpload } from '../upload/read-csv-upload.js';
import { withoutHostPaths, withoutSpoolPath } from '../upload/spool-paths.js';
import { UploadSpool } from '../upload/upload-spool.js';
import { apiWordsOf } from './audience-words.js';
import { firstRejects } from './rejects-rows.js';

/** Below REPORTS_DIR: where uploads are spooled while they are read (as a campaign's are). */
const UPLOADS_DIR = '.uploads';
/** Below REPORTS_DIR: each audience's last rejects file, `audiences/<portfolio>/<name>.rejects.csv`. */
const REJECTS_DIR = 'audiences';
/** Refused rows the answer shows, as a campaign's dry run shows its rejects. */
const REJECTS_SHOWN = 20;

const CSV_TYPES = ['text/csv', 'text/plain', 'application/octet-stream'] as const;
const binary = z.string().meta({ format: 'binary' });

export const importAudienceRoute = {
  method: 'PUT',
  path: '/audiences/:name',
  operationId: 'importAudience',
  summary: 'Import a CSV into an audience, creating it if need be (`campaign audiences import NAME FILE`)',
  description:
    'The CSV is streamed to disk, never held in memory, with the limits of a campaign upload (API_MAX_UPLOAD_BYTES: 413). ' +
    "Every record is imported (a contact added or updated: the file's columns replaced, its others kept) or refused with its " +
    'row and reason; a later row of the same number wins. `replace=true` makes the audience exactly the file, at once. A header ' +
    'without the phone (or consent) column is refused whole (422 CSV_HEADER_INVALID), nothing written. The refused rows go to ' +
    'a rejects file in REPORTS_DIR, the first of them in the answer.',
  scope: 'send',
  params: audienceNameParams,
  query: z.strictObject({
    ...audienceTargetFields,
    phoneColumn: z.string().max(256).optional().meta({ description: 'The column of phone numbers (default `phone`).' }),
    defaultCountry: z
      .string()
      .max(2)
      .optional()
      .meta({ pattern: SPEC_FORMATS.country, description: 'ISO country (either case) of numbers written without a country code.' }),
    delimiter: z.enum([',', ';', '|', 'tab']).optional().meta({ description: 'The field delimiter (default: detected).' }),
    replace: z
      .enum(['true', 'false'])
      .optional()
      .meta({ description: 'true: the audience becomes exactly the file (contacts and columns not in it are gone).' }),
    consentColumn: z
      .string()
      .max(256)
      .optional()
      .meta({ description: "A column whose non-empty cell records an opt-in in the portfolio's consent record (dated by the cell)." }),
  }),
  upload: {
    description:
      'The CSV with its header: the body itself (`text/csv`), or `multipart/form-data` with one `file` part (what a form sends).',
    contentTypes: {
      ...Object.fromEntries(CSV_TYPES.map((type) => [type, binary])),
      'multipart/form-data': z.strictObject({ file: binary.meta({ description: 'The CSV; its filename is kept as `importedFrom`.' }) }),
    },
  },
  responses: {
    200: { description: 'Imported into an audience that existed', schema: audienceImportSchema },
    201: { description: 'Imported into a new audience', schema: audienceImportSchema },
    ...problemAnswers(400, 401, 403, 413, 415, 422, 429, 503),
  },
} satisfies DocumentedRoute;

type ImportQuery = z.output<typeof importAudienceRoute.query>;

/** `campaign audiences import` over HTTP: the upload spooled to REPORTS_DIR/.uploads and deleted after, its rejects file kept. */
export function registerAudienceImportRoute(app: FastifyInstance, services: ApiServices): void {
  const { context } = services;
  const { config } = context;
  registerApiRoute(app, importAudienceRoute, async ({ params, query, request, reply }) => {
    let spool: UploadSpool | undefined;
    try {
      requireCsvBody(request);
      // A bad name or portfolio is refused before the upload is read.
      const name = checkAudienceName(params.name);
      const target = { portfolio: query.portfolio, phoneNumberId: query.phoneNumberId };
      const { portfolio } = audienceTarget(context, target);
      spool = await UploadSpool.open(join(config.reportsDir, UPLOADS_DIR));
      const upload = await readCsvUpload(request, spool, config.httpApi.maxUploadBytes);
      const rejectsDir = join(config.reportsDir, REJECTS_DIR, portfolio);
      await makeDirectory(rejectsDir);
      const rejectsFile = join(rejectsDir, `${name}.rejects.csv`);
      // The file says what the last import refused: none refused, none left from the one before.
      await rm(rejectsFile, { force: true });
      const outcome = await importAudience(context, { name, file: upload.path, target, ...importOptions(query), rejectsFile });
      const isNew = outcome.created && outcome.replaced === undefined;
      return reply.code(isNew ? 201 : 200).send(await importAnswer(outcome, config.reportsDir));
    } catch (error) {
      request.raw.resume();
      if (!isAppError(error)) throw error;
      // The rest of a refused upload is not read: the connection closes after the answer.
      if (isAppError(error, 'API_UPLOAD_TOO_LARGE')) reply.header('connection', 'close');
      const local = spool === undefined ? error : withoutSpoolPath(error, spool.dir);
      throw apiWordsOf(withoutHostPaths(local, new Map([[config.reportsDir, 'REPORTS_DIR']])));
    } finally {
      // Before the answer goes out: nothing of the upload is left on disk.
      await spool?.remove();
    }
  });
}

/** A CSV body or a multipart one: anything else is refused before a byte is read. */
function requireCsvBody(request: FastifyRequest): void {
  const body = request.body as Readable | undefined;
  if (request.isMultipart() || (typeof body === 'object' && body !== null && typeof body.pipe === 'function')) return;
  throw new ProblemsError([{ code: 'API_REQUEST_INVALID', detail: 'Send the CSV as text/csv, or multipart/form-data with a file part' }], {
    code: 'API_REQUEST_INVALID',
    status: 415,
  });
}

function importOptions(query: ImportQuery): {
  replace: boolean;
  phoneColumn?: string;
  defaultCountry?: string;
  delimiter?: string;
  consentColumn?: string;
} {
  return {
    replace: query.replace === 'true',
    ...(query.phoneColumn === undefined ? {} : { phoneColumn: query.phoneColumn }),
    ...(query.defaultCountry === undefined ? {} : { defaultCountry: query.defaultCountry }),
    ...(query.delimiter === undefined ? {} : { delimiter: query.delimiter }),
    ...(query.consentColumn === undefined ? {} : { consentColumn: query.consentColumn }),
  };
}

/** The outcome as the document states it: times as ISO, the rejects file by its place in REPORTS_DIR, its first rows inline. */
async function importAnswer(outcome: AudienceImportOutcome, reportsDir: string): Promise<z.input<typeof audienceImportSchema>> {
  const { rejectsFile, replaced, ...rest } = outcome;
  const rejects = rejectsFile === undefined ? { rows: [] } : await firstRejects(rejectsFile, REJECTS_SHOWN);
  return {
    ...rest,
    replaced: replaced ?? null,
    rejectsFile: rejectsFile === undefined ? null : relative(reportsDir, rejectsFile),
    rejects: rejects.rows,
    rejectsTotal: outcome.rejected + outcome.duplicates,
  };
}
