import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { rejectsFilePath } from '../../campaigns/ingest/rejects-file.js';
import { reportSource } from '../../app/report-source.js';
import { campaignNotFound } from '../../campaigns/campaign-not-found.js';
import { reportDisposition, reportStream } from '../../http/report-download.js';
import { AppError } from '../../errors/app-error.js';
import { registerApiRoute } from '../api-route.js';
import type { DocumentedRoute, HeaderDoc } from '../openapi.js';
import type { ApiServices } from '../api-services.js';
import { campaignIdParams } from '../schemas/campaign-params.js';
import { rejectsJsonSchema } from '../schemas/directory-schemas.js';
import { problemAnswers } from '../schemas/problem-answers.js';
import { firstRejects } from './rejects-rows.js';

const CSV = 'text/csv; charset=utf-8';

/** A download's file name, as a browser saves it. */
const DISPOSITION: HeaderDoc = { description: 'attachment; filename="…": the name the file is saved as.' };

export const campaignReportRoute = {
  method: 'GET',
  path: '/campaigns/:id/report',
  operationId: 'getCampaignReport',
  summary: "The campaign's per-row CSV report, streamed (the file `campaign report` writes, with the user_id column)",
  description:
    'Read from the ledger page by page as the client takes it. `Content-Disposition` names it as `campaign report` saves it: ' +
    '`<id>-<name slug>.csv`. A purged campaign has no rows left: 410, and no report.',
  scope: 'read',
  params: campaignIdParams,
  responses: {
    200: {
      description: 'The report (row, phone, user_id, status, message_id, error_code, …)',
      schema: z.string(),
      contentType: 'text/csv',
    },
    ...problemAnswers(400, 401, 403, 404, 410, 429, 503),
  },
  responseHeaders: { 200: { 'Content-Disposition': { ...DISPOSITION, required: true } } },
} satisfies DocumentedRoute;

export const campaignRejectsRoute = {
  method: 'GET',
  path: '/campaigns/:id/rejects',
  operationId: 'getCampaignRejects',
  summary: 'The rows `send` rejected or skipped (the rejects file, `row,phone,reason`), as CSV or the first rows as JSON',
  scope: 'read',
  params: campaignIdParams,
  query: z.strictObject({
    format: z
      .enum(['csv', 'json'])
      .default('csv')
      .meta({ description: '`csv`: the whole file, streamed; `json`: its first `limit` rows.' }),
    limit: z.coerce.number().int().min(1).max(1000).default(100).meta({ description: 'With format=json: how many rows.' }),
  }),
  responses: {
    200: {
      description: 'The rejects file (format=csv, text/csv) or its first rows (format=json)',
      schema: rejectsJsonSchema,
      alternatives: { 'text/csv': z.string() },
    },
    ...problemAnswers(400, 401, 403, 404, 410, 429, 503),
    404: {
      ...problemAnswers(404)[404]!,
      description: 'No such campaign (CAMPAIGN_NOT_FOUND), or it has no rejects file: no row was rejected or skipped (REJECTS_NOT_FOUND)',
    },
  },
  responseHeaders: { 200: { 'Content-Disposition': { ...DISPOSITION, description: `With format=csv: ${DISPOSITION.description}` } } },
} satisfies DocumentedRoute;

/** `campaign report ID`, streamed as the dashboard's download streams it; and the rejects file `send` wrote. */
export function registerCampaignFilesRoutes(app: FastifyInstance, services: ApiServices): void {
  const { context } = services;
  registerApiRoute(app, campaignReportRoute, async ({ params, reply }) => {
    const { id } = params;
    const source = await reportSource(context, id);
    const stream = reportStream(
      context.ledger,
      id,
      (error) => context.logger.warn({ campaignId: id, reason: error.message }, 'API report download ended early'),
      source.userIds,
    );
    return csvReply(reply, reportDisposition(id, source.definition?.name)).send(stream);
  });

  registerApiRoute(app, campaignRejectsRoute, async ({ params, query, reply }) => {
    const { id } = params;
    const status = await context.ledger.status(id);
    if (status === undefined) throw campaignNotFound(id);
    if (status.purgedAt !== undefined) {
      throw new AppError('CAMPAIGN_PURGED', `Campaign ${id} was purged: its rejected rows (phone numbers) are not served any more`);
    }
    const path = rejectsFilePath(context.config.reportsDir, id);
    if ((await stat(path).catch(() => undefined))?.isFile() !== true) {
      throw new AppError(
        'REJECTS_NOT_FOUND',
        `Campaign ${id} has no rejects file: none of its rows was rejected or skipped (\`campaign status ${id}\` shows the counts)`,
      );
    }
    if (query.format === 'json') return firstRejects(path, query.limit);
    return csvReply(reply, `attachment; filename="${id.replace(/[^A-Za-z0-9_-]/g, '_')}.rejects.csv"`).send(createReadStream(path));
  });
}

function csvReply(reply: FastifyReply, disposition: string): FastifyReply {
  return reply
    .header('content-disposition', disposition)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .type(CSV);
}
