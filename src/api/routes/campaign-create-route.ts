import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { createCampaignDeps } from '../../app/create-campaign-deps.js';
import { sendCampaign } from '../../app/send-campaign.js';
import type { CreateCampaignDeps } from '../../campaigns/create-campaign.js';
import { RejectsSample } from '../../campaigns/ingest/rejects-sample.js';
import { readCampaignFlags } from '../../campaigns/spec/campaign-flags.js';
import { FLAG_FIELD_NAMES } from '../../campaigns/spec/field-names.js';
import { withFields } from '../../campaigns/spec/spec-problems.js';
import { isAppError, type AppError } from '../../errors/app-error.js';
import type { ErrorCode } from '../../errors/error-codes.js';
import { problemsOf } from '../../errors/problems-error.js';
import type { StoredAnswer } from '../../redis/access/idempotency-keys.js';
import type { ApiCaller } from '../api-principal.js';
import { API_BASE } from '../api-server.js';
import { registerApiRoute } from '../api-route.js';
import type { DocumentedRoute, HeaderDoc } from '../openapi.js';
import type { ApiServices } from '../api-services.js';
import {
  answerIdempotent,
  idempotencyKeyOf,
  idempotencyKeySchema,
  requestFingerprint,
  sendAnswer,
  type IdempotentAnswer,
  type IdempotentRequest,
} from '../idempotency.js';
import { ProblemsError, statusOf } from '../problem.js';
import { campaignSpecSchema } from '../schemas/campaign-spec-schema.js';
import { problemAnswers } from '../schemas/problem-answers.js';
import { dryRunSummarySchema, sendSummarySchema } from '../schemas/send-summary-schema.js';
import { readUpload, type SpooledUpload } from '../upload/read-upload.js';
import { UploadSpool } from '../upload/upload-spool.js';
import { withoutHostPaths, withoutSpoolPath } from '../upload/spool-paths.js';
import { summaryAnswer } from './summary-answer.js';

/** Set on a replayed answer (the header's own name, as the document states it). */
const REPLAYED_NAME = 'Idempotent-Replayed';
const REPLAYED_DOC: HeaderDoc = {
  description: '`true` when this is the answer first given to this Idempotency-Key, replayed: nothing new was created.',
  schema: z.literal('true'),
};

/** Below REPORTS_DIR: where uploads are spooled while they are read. */
const UPLOADS_DIR = '.uploads';
/** Refused rows a dry run's answer shows; `rejectsTotal` counts them all. */
const REJECTS_SHOWN = 20;

/** What a `text/csv` body may be labelled: the upload is read as bytes whichever it is. */
const CSV_TYPES = ['text/csv', 'text/plain', 'application/octet-stream'] as const;
const binary = z.string().meta({ format: 'binary' });

export const createCampaignRoute = {
  method: 'POST',
  path: '/campaigns',
  operationId: 'createCampaign',
  summary: 'Create a campaign from a CSV upload or a stored audience, or plan it (dry run)',
  description:
    'What `campaign send FILE` (or `campaign send --audience NAME`) does. The CSV is streamed to disk, never held in memory; a ' +
    'body over API_MAX_UPLOAD_BYTES is refused (413). A campaign to a stored audience (`audience` in the spec) takes no file: ' +
    'send the spec alone as an `application/json` body, or a multipart body without a `file` part (forms the media types ' +
    'below leave out, so that a client generated from this document keeps one body type); a spec with `audience` and a file ' +
    'is refused (422). A refused spec or header answers 422 listing every problem, each naming its `field` (JSON path) or ' +
    '`column`.',
  scope: 'send',
  query: z.strictObject({
    spec: z
      .string()
      .optional()
      .meta({
        description:
          'With a CSV body (and needed with one): the campaign spec as JSON, URL-encoded; not with a multipart body, which has ' +
          'its `spec` part (`x-with-body`). A spec too large for a URL (16 KiB with the headers, 431) goes in a multipart body.',
      }),
    dryRun: z
      .enum(['true', 'false'])
      .optional()
      .meta({
        description:
          'true: check everything and answer the plan (200), its refused rows in the answer; nothing is created, no file ' +
          "is left behind. Same as the spec's `dryRun`.",
      }),
  }),
  jsonQuery: { spec: campaignSpecSchema },
  queryWithBody: { spec: { types: CSV_TYPES, required: true } },
  upload: {
    description:
      'The CSV of recipients: the body itself (`text/csv`, the campaign named "upload" unless the spec names it), or ' +
      '`multipart/form-data` with a `spec` part (JSON) and a `file` part, in either order (the campaign named after the file).',
    contentTypes: {
      ...Object.fromEntries(CSV_TYPES.map((type) => [type, binary])),
      'multipart/form-data': z.strictObject({
        spec: campaignSpecSchema,
        file: binary.meta({ description: "The CSV; its filename is the campaign's default name." }),
      }),
    },
  },
  partTypes: { spec: 'application/json' },
  headers: {
    'Idempotency-Key':
      '1 to 200 printable ASCII characters: a retry of the same request with the same key (same token) answers the first ' +
      'answer again, with `Idempotent-Replayed: true`, instead of creating a second campaign; the key with another request ' +
      '(another file, spec or query) is refused (422 IDEMPOTENCY_KEY_REUSED). Kept 24 h.',
  },
  headerSchemas: { 'Idempotency-Key': idempotencyKeySchema },
  responses: {
    200: { description: 'The plan of a dry run (`send --dry-run --json`) and its first refused rows', schema: dryRunSummarySchema },
    201: { description: 'Created (`send --json`); `Location` names the campaign', schema: sendSummarySchema },
    ...problemAnswers(400, 401, 403, 404, 409, 413, 415, 422, 429, 431, 503),
    404: { ...problemAnswers(404)[404]!, description: 'The spec names an audience the portfolio has none of (AUDIENCE_NOT_FOUND)' },
  },
  responseHeaders: {
    200: { [REPLAYED_NAME]: REPLAYED_DOC },
    201: {
      Location: { description: 'The new campaign: /api/v1/campaigns/{id}.', required: true },
      [REPLAYED_NAME]: REPLAYED_DOC,
    },
  },
} satisfies DocumentedRoute;

/** `campaign send` over HTTP: the same spec, checks and summary; the upload is spooled to disk and deleted after. */
export function registerCampaignCreateRoute(app: FastifyInstance, services: ApiServices): void {
  registerApiRoute(app, createCampaignRoute, async ({ query, caller, request, reply }) => {
    const key = idempotencyKeyOf(request);
    const jsonSpec = jsonSpecOf(request, query.spec);
    if (jsonSpec === undefined) requireUpload(request);
    const { config, redis } = services.context;
    const deps = createCampaignDeps(services.context);
    let spool: UploadSpool | undefined;
    const read = async (): Promise<IdempotentRequest> => {
      const upload =
        jsonSpec ??
        (await readUpload(request, (spool = await UploadSpool.open(join(config.reportsDir, UPLOADS_DIR))), {
          maxBytes: config.httpApi.maxUploadBytes,
          specQuery: query.spec,
        }));
      // What makes a retry the same request: the query, the spec and the file's name and bytes (not multipart's random boundary).
      const fingerprint = requestFingerprint([
        createCampaignRoute.method,
        createCampaignRoute.path,
        query.dryRun ?? null,
        upload.specText ?? null,
        upload.fileName ?? null,
        upload.sha256 ?? null,
      ]);
      return { fingerprint, run: () => createFromUpload(services, deps, caller, upload, query) };
    };
    let answer: IdempotentAnswer;
    try {
      answer = await answerIdempotent({ redis, prefix: config.queuePrefix, caller, key }, read, () => request.raw.resume());
    } catch (error) {
      // The rest of a refused upload is not read: the connection closes after the answer.
      if (isAppError(error, 'API_UPLOAD_TOO_LARGE')) reply.header('connection', 'close');
      if (!isAppError(error)) throw error;
      const paths = new Map([[config.reportsDir, 'REPORTS_DIR']]);
      if (deps.rateCard !== undefined) paths.set(deps.rateCard.file, basename(deps.rateCard.file));
      throw withoutHostPaths(spool === undefined ? error : withoutSpoolPath(error, spool.dir), paths);
    } finally {
      // Before the answer goes out: a client that has it finds nothing of its request left on disk.
      await spool?.remove();
    }
    return sendAnswer(reply, answer);
  });
}

/**
 * A JSON body is the spec alone (a campaign to a stored audience: no file); the query's `spec`
 * goes with a CSV body only. Undefined: the body is not JSON.
 */
function jsonSpecOf(request: FastifyRequest, specQuery: string | undefined): SpooledUpload | undefined {
  const body: unknown = request.body;
  if (request.isMultipart() || isStream(body) || body === undefined || body === null) return undefined;
  if (specQuery !== undefined)
    throw new ProblemsError([{ code: 'API_REQUEST_INVALID', detail: 'a JSON body is the spec: give none in the query', field: 'spec' }], {
      code: 'API_REQUEST_INVALID',
      status: 400,
    });
  return { specText: JSON.stringify(body), path: undefined, sha256: undefined, fileName: undefined };
}

/** A CSV body or a multipart one: anything else is refused before the key is claimed or a byte read. */
function requireUpload(request: FastifyRequest): void {
  if (request.isMultipart() || isStream(request.body)) return;
  throw new ProblemsError(
    [
      {
        code: 'API_REQUEST_INVALID',
        detail: 'Send the CSV as text/csv, or multipart/form-data with a spec and a file part, or a JSON spec naming an audience',
      },
    ],
    { code: 'API_REQUEST_INVALID', status: 415 },
  );
}

/** The campaign of a spec and its upload (none for an audience), answered as `send --json` / `--dry-run --json` print it. */
export async function createFromUpload(
  services: ApiServices,
  deps: CreateCampaignDeps,
  caller: ApiCaller,
  upload: SpooledUpload,
  query: { dryRun?: 'true' | 'false' | undefined },
): Promise<StoredAnswer> {
  try {
    const { flags, problems } = readCampaignFlags(specInputOf(upload.specText));
    if (flags === undefined) throw new ProblemsError(problems);
    // The query's dryRun does what the spec's does.
    const dryRun = query.dryRun === 'true' || flags.dryRun === true;
    // A dry run keeps its refused rows for the answer: it leaves no file behind.
    const sample = dryRun ? new RejectsSample(REJECTS_SHOWN) : undefined;
    const result = await sendCampaign(deps, {
      flags: dryRun ? { ...flags, dryRun } : flags,
      names: FLAG_FIELD_NAMES,
      file: upload.path,
      everyProblem: { found: problems },
      now: services.now(),
      rejects: sample,
      record: (campaignId, action) => services.recordAction(campaignId, caller, action),
    });
    const summary = summaryAnswer(result);
    if (sample !== undefined) return { status: 200, body: { ...summary, rejects: sample.rows, rejectsTotal: sample.total }, headers: {} };
    return { status: 201, body: summary, headers: { location: `${API_BASE}/campaigns/${encodeURIComponent(result.id)}` } };
  } catch (error) {
    throw isAppError(error) ? everyProblemNamed(error) : error;
  }
}

/** The field a refusal of one check names when it names none (else: the file). */
const FALLBACK_FIELDS: Partial<Record<ErrorCode, string>> = {
  COST_ABOVE_MAX: FLAG_FIELD_NAMES.maxCost,
  TEMPLATE_MAPPING_INVALID: FLAG_FIELD_NAMES['template.name'],
  TEMPLATE_SLOT_UNFILLED: FLAG_FIELD_NAMES['template.name'],
  AUDIENCE_NAME_INVALID: FLAG_FIELD_NAMES['audience.name'],
  AUDIENCE_NO_CONTACTS: FLAG_FIELD_NAMES['audience.where'],
  AUDIENCE_WHERE_INVALID: FLAG_FIELD_NAMES['audience.where'],
  TEST_SEND_INVALID: FLAG_FIELD_NAMES.testTo,
  CLICK_TRACKING_INVALID: FLAG_FIELD_NAMES.trackClicks,
};

/**
 * A refusal of the spec or file (422) as a list of problems, each naming its field or column,
 * even when one check threw alone (the template's category, the cost, …).
 */
function everyProblemNamed(error: AppError): AppError {
  const status = error instanceof ProblemsError && error.status !== undefined ? error.status : statusOf(error.code);
  if (status !== 422) return error;
  const fallback = FALLBACK_FIELDS[error.code] ?? 'file';
  const items = withFields(problemsOf(error), FLAG_FIELD_NAMES, fallback);
  return new ProblemsError(items, { code: error.code, message: error.message });
}

/** The spec as sent: JSON text, or nothing (an empty spec, refused for what it lacks). */
function specInputOf(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ProblemsError(
      [{ code: 'API_REQUEST_INVALID', detail: `spec: not JSON (${(error as Error).message.slice(0, 120)})`, field: 'spec' }],
      { code: 'API_REQUEST_INVALID', status: 400 },
    );
  }
}

function isStream(body: unknown): body is Readable {
  return typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function';
}
