import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { createCampaign } from '../../campaigns/create-campaign.js';
import { readRejects } from '../../campaigns/ingest/rejects-read.js';
import { FLAG_FIELD_NAMES, readCampaignFlags, specOfFlags } from '../../campaigns/spec/campaign-flags.js';
import { checkSpecWithFile } from '../../campaigns/spec/spec-with-file.js';
import { summaryJson } from '../../cli/format.js';
import { campaignDeps } from '../../cli/run/send.js';
import { isAppError } from '../../errors/app-error.js';
import type { StoredAnswer } from '../../redis/idempotency-keys.js';
import type { ApiCaller } from '../api-principal.js';
import { API_BASE } from '../api-server.js';
import { registerApiRoute, type ApiRouteDefinition } from '../api-route.js';
import type { ApiServices } from '../api-services.js';
import { idempotencyKeyOf, sendIdempotent } from '../idempotency.js';
import { ProblemsError, type ProblemItem } from '../problem.js';
import { problemAnswers } from '../schemas/problem-answers.js';
import { dryRunSummarySchema, sendSummarySchema } from '../schemas/send-summary-schema.js';
import { readUpload } from '../upload/read-upload.js';
import { UploadSpool } from '../upload/upload-spool.js';
import { withoutSpoolPath } from '../upload/spool-paths.js';

/** Below REPORTS_DIR: where uploads are spooled while they are read. */
const UPLOADS_DIR = '.uploads';
/** Refused rows a dry run's answer shows; the rejects file has them all. */
const REJECTS_SHOWN = 20;

const SPEC_DESCRIPTION =
  'The campaign as a JSON object whose fields are the long flags of `campaign send` in camelCase ' +
  '(`--phone-number-id` → `phoneNumberId`, `--at` → `at`; list flags take arrays, `"params": ["name", "order_id"]`; ' +
  '`--param name=column` takes an object): `name`, `template`, `language`, `text`, `params`, `param`, `at`, `validFor`, ' +
  "`window`, `days`, `priority`, `phoneNumberId`, `campaign`, …, and `maxCost` (a number in the rate card's currency).";

export const createCampaignRoute = {
  method: 'POST',
  path: '/campaigns',
  operationId: 'createCampaign',
  summary: 'Create a campaign from a CSV upload, or plan it (dry run)',
  description:
    'What `campaign send FILE` does. The CSV is streamed to disk, never held in memory; a body over API_MAX_UPLOAD_BYTES is ' +
    'refused (413). A refused spec or header answers 422 listing every problem, each naming its `field` (JSON path) or `column`.',
  scope: 'send',
  query: z.strictObject({
    spec: z
      .string()
      .optional()
      .meta({ description: `With a \`text/csv\` body: ${SPEC_DESCRIPTION} URL-encoded.` }),
    dryRun: z
      .enum(['true', 'false'])
      .optional()
      .meta({ description: "true: check everything and answer the plan (200); nothing is created. Same as the spec's `dryRun`." }),
  }),
  upload: {
    description:
      'The CSV of recipients: the body itself (`text/csv`, the campaign named "upload" unless the spec names it), or ' +
      '`multipart/form-data` with a `spec` field and a `file` part, in either order (the campaign named after the file).',
    contentTypes: {
      'text/csv': z.string().meta({ format: 'binary' }),
      'multipart/form-data': z.object({
        spec: z.string().optional().meta({ description: SPEC_DESCRIPTION }),
        file: z.string().meta({ format: 'binary', description: "The CSV; its filename is the campaign's default name." }),
      }),
    },
  },
  headers: {
    'Idempotency-Key':
      '1 to 200 printable characters: a retry with the same key (same token) answers the first answer again, ' +
      'with `Idempotent-Replayed: true`, instead of creating a second campaign. Kept 24 h.',
  },
  responses: {
    200: { description: 'The plan of a dry run (`send --dry-run --json`) and its first refused rows', schema: dryRunSummarySchema },
    201: { description: 'Created (`send --json`); `Location` names the campaign', schema: sendSummarySchema },
    ...problemAnswers(400, 401, 403, 409, 413, 415, 422, 429, 503),
  },
} satisfies ApiRouteDefinition;

/** `campaign send` over HTTP: the same spec, checks and summary; the upload is spooled to disk and deleted after. */
export function registerCampaignCreateRoute(app: FastifyInstance, services: ApiServices): void {
  registerApiRoute(app, createCampaignRoute, async ({ query, caller, request, reply }) => {
    const key = idempotencyKeyOf(request);
    const { config, redis } = services.context;
    try {
      return await sendIdempotent(
        { redis, prefix: config.queuePrefix, caller, key },
        reply,
        () => createFromUpload(services, caller, request, query),
        () => request.raw.resume(),
      );
    } catch (error) {
      // The rest of a refused upload is not read: the connection closes after the answer.
      if (isAppError(error, 'API_UPLOAD_TOO_LARGE')) reply.header('connection', 'close');
      throw error;
    }
  });
}

async function createFromUpload(
  services: ApiServices,
  caller: ApiCaller,
  request: FastifyRequest,
  query: { spec?: string | undefined; dryRun?: 'true' | 'false' | undefined },
): Promise<StoredAnswer> {
  if (!request.isMultipart() && !isStream(request.body)) {
    throw new ProblemsError(
      [{ code: 'API_REQUEST_INVALID', detail: 'Send the CSV as text/csv, or multipart/form-data with a spec and a file part' }],
      { code: 'API_REQUEST_INVALID', status: 415 },
    );
  }
  const { context } = services;
  const spool = await UploadSpool.open(join(context.config.reportsDir, UPLOADS_DIR));
  try {
    const upload = await readUpload(request, spool, { maxBytes: context.config.httpApi.maxUploadBytes, specQuery: query.spec });
    const checks = { now: services.now(), defaultPhoneNumberId: context.config.phoneNumberId };
    const { maxCost, rest, problems: costProblems } = maxCostOf(specInputOf(upload.specText));
    const { flags, problems } = readCampaignFlags(rest);
    if (flags === undefined) throw new ProblemsError([...costProblems, ...problems]);
    const spec = await checkSpecWithFile(specOfFlags(flags), upload.path, FLAG_FIELD_NAMES, checks, [...costProblems, ...problems]);
    if (query.dryRun === 'true') spec.dryRun = true;
    const result = await createCampaign(campaignDeps(context), {
      spec,
      names: FLAG_FIELD_NAMES,
      file: upload.path,
      ...(maxCost === undefined ? {} : { maxCost: { amount: maxCost, name: 'maxCost' } }),
    });
    const summary = summaryJson(result, result.sendRate);
    if (result.dryRun)
      return { status: 200, body: { ...summary, rejects: await readRejects(result.rejectsFile, REJECTS_SHOWN) }, headers: {} };
    await services.recordAction(result.id, caller, spec.campaignId === undefined ? 'create' : 'continue');
    return { status: 201, body: summary, headers: { location: `${API_BASE}/campaigns/${encodeURIComponent(result.id)}` } };
  } catch (error) {
    throw isAppError(error) ? withoutSpoolPath(error, spool.dir) : error;
  } finally {
    await spool.remove();
  }
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

/** `maxCost` beside the flags (send's `--max-cost`: not a field of the campaign, a limit on creating it). */
function maxCostOf(input: unknown): { maxCost: number | undefined; rest: unknown; problems: ProblemItem[] } {
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !('maxCost' in input))
    return { maxCost: undefined, rest: input, problems: [] };
  const { maxCost, ...rest } = input as Record<string, unknown>;
  if (typeof maxCost === 'number' && Number.isFinite(maxCost) && maxCost >= 0) return { maxCost, rest, problems: [] };
  const detail = "maxCost: give an amount in the rate card's currency, e.g. 250 or 99.5";
  return { maxCost: undefined, rest, problems: [{ code: 'OPTION_INVALID', field: 'maxCost', detail }] };
}

function isStream(body: unknown): body is Readable {
  return typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function';
}
