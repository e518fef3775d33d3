import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  audienceColumns,
  deleteAudience,
  exportAudience,
  listAudiences,
  removeContacts,
  showAudience,
  type AudienceSummary,
} from '../../app/audiences.js';
import { audienceTarget } from '../../app/audiences-context.js';
import { audienceNotFound, checkAudienceName } from '../../audiences/audience-name.js';
import { SPEC_FORMATS } from '../../campaigns/spec/spec-formats.js';
import { isAppError } from '../../errors/app-error.js';
import type { CountryCode } from 'libphonenumber-js';
import { registerApiRoute } from '../api-route.js';
import type { ApiServices } from '../api-services.js';
import type { DocumentedRoute } from '../openapi.js';
import {
  audienceDetailSchema,
  audienceListSchema,
  audienceNameParams,
  audienceTargetFields,
  contactsRemovalSchema,
} from '../schemas/audience-schemas.js';
import { problemAnswers } from '../schemas/problem-answers.js';
import { apiWordsOf } from './audience-words.js';
import { registerAudienceImportRoute } from './audience-import-route.js';

export { importAudienceRoute } from './audience-import-route.js';

const targetQuery = z.strictObject(audienceTargetFields);

export const listAudiencesRoute = {
  method: 'GET',
  path: '/audiences',
  operationId: 'listAudiences',
  summary: "A portfolio's audiences, by name (`campaign audiences list --json`)",
  scope: 'read',
  query: targetQuery,
  responses: {
    200: { description: 'The audiences: contacts, attributes, last import', schema: audienceListSchema },
    ...problemAnswers(400, 401, 403, 422, 429, 503),
  },
} satisfies DocumentedRoute;

export const getAudienceRoute = {
  method: 'GET',
  path: '/audiences/:name',
  operationId: 'getAudience',
  summary: 'One audience and what its contacts hold (`campaign audiences show NAME --json`)',
  description:
    'Per attribute how many contacts fill it, and how many contacts are opted out, have an opt-in on record and a user ID. ' +
    'Reads every contact (a page at a time): seconds for a million.',
  scope: 'read',
  params: audienceNameParams,
  query: targetQuery,
  responses: {
    200: { description: 'The audience', schema: audienceDetailSchema },
    ...problemAnswers(400, 401, 403, 404, 422, 429, 503),
    404: { ...problemAnswers(404)[404]!, description: 'No audience of that name in the portfolio (AUDIENCE_NOT_FOUND)' },
  },
} satisfies DocumentedRoute;

export const exportAudienceRoute = {
  method: 'GET',
  path: '/audiences/:name/export',
  operationId: 'exportAudience',
  summary: 'The audience as CSV, streamed (`campaign audiences export NAME`)',
  description:
    '`phone`, the attributes in order, then `opted_out`, `user_id` and `consent`. Every cell is neutralised as the reports ' +
    "are (a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`).",
  scope: 'read',
  params: audienceNameParams,
  query: targetQuery,
  responses: {
    200: { description: 'The contacts', schema: z.string(), contentType: 'text/csv' },
    ...problemAnswers(400, 401, 403, 404, 422, 429, 503),
    404: { ...problemAnswers(404)[404]!, description: 'No audience of that name in the portfolio (AUDIENCE_NOT_FOUND)' },
  },
  responseHeaders: { 200: { 'Content-Disposition': { description: 'attachment; filename="<name>.csv"', required: true } } },
} satisfies DocumentedRoute;

export const removeContactsRoute = {
  method: 'DELETE',
  path: '/audiences/:name/contacts',
  operationId: 'removeAudienceContacts',
  summary: 'Remove contacts from an audience (`campaign audiences remove NAME PHONE…`)',
  scope: 'send',
  params: audienceNameParams,
  query: targetQuery,
  body: z.strictObject({
    phones: z
      .array(z.string().max(64))
      .min(1)
      .max(1000)
      .meta({ description: 'The contacts, each normalised as the import does; one not in the audience is listed in `notFound`.' }),
    defaultCountry: z
      .string()
      .regex(new RegExp(SPEC_FORMATS.country), { error: 'a two-letter ISO country code such as DE, BR or US' })
      .optional()
      .meta({ description: 'ISO country (either case) of phones written without a country code.' }),
  }),
  responses: {
    200: { description: 'How many were removed, and which were not in the audience', schema: contactsRemovalSchema },
    ...problemAnswers(400, 401, 403, 404, 422, 429, 503),
    404: { ...problemAnswers(404)[404]!, description: 'No audience of that name in the portfolio (AUDIENCE_NOT_FOUND)' },
  },
} satisfies DocumentedRoute;

export const deleteAudienceRoute = {
  method: 'DELETE',
  path: '/audiences/:name',
  operationId: 'deleteAudience',
  summary: 'Delete an audience and its contacts (`campaign audiences delete NAME`)',
  description: "A line in the portfolio's audience history records it.",
  scope: 'admin',
  params: audienceNameParams,
  query: targetQuery,
  responses: {
    204: { description: 'Deleted' },
    ...problemAnswers(400, 401, 403, 404, 422, 429, 503),
    404: { ...problemAnswers(404)[404]!, description: 'No audience of that name in the portfolio (AUDIENCE_NOT_FOUND)' },
  },
} satisfies DocumentedRoute;

/** The routes of `campaign audiences …`, in the order the document lists them. */
export function registerAudiencesRoutes(app: FastifyInstance, services: ApiServices): void {
  const { context } = services;
  const targetOf = (query: { portfolio?: string | undefined; phoneNumberId?: string | undefined }) => ({
    portfolio: query.portfolio,
    phoneNumberId: query.phoneNumberId,
  });

  registerApiRoute(app, listAudiencesRoute, async ({ query }) =>
    inApiWords(async () => {
      const target = targetOf(query);
      const { portfolio } = audienceTarget(context, target);
      return { portfolio, audiences: (await listAudiences(context, target)).map(summaryJson) };
    }),
  );

  registerApiRoute(app, getAudienceRoute, async ({ params, query }) =>
    inApiWords(async () => {
      const detail = await showAudience(context, targetOf(query), params.name);
      return { ...detail, ...summaryJson(detail) };
    }),
  );

  registerApiRoute(app, exportAudienceRoute, async ({ params, query, reply }) => {
    const target = targetOf(query);
    // AUDIENCE_NOT_FOUND (and every other refusal) before the first byte: after it, only the stream can end early.
    await inApiWords(() => audienceColumns(context, target, params.name));
    const out = new PassThrough();
    exportAudience(context, target, params.name, out).then(
      () => out.end(),
      (error: unknown) => {
        context.logger.warn({ audience: params.name, reason: (error as Error).message }, 'API audience export ended early');
        out.destroy(error as Error);
      },
    );
    return reply
      .header('content-disposition', `attachment; filename="${params.name}.csv"`)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .type('text/csv; charset=utf-8')
      .send(out);
  });

  registerApiRoute(app, removeContactsRoute, async ({ params, query, body }) =>
    inApiWords(() =>
      removeContacts(context, targetOf(query), params.name, body.phones, body.defaultCountry?.toUpperCase() as CountryCode | undefined),
    ),
  );

  registerApiRoute(app, deleteAudienceRoute, async ({ params, query, reply }) => {
    const target = targetOf(query);
    const deleted = await inApiWords(() => deleteAudience(context, target, params.name));
    if (!deleted) throw apiWordsOf(audienceNotFound(checkAudienceName(params.name), audienceTarget(context, target).portfolio));
    return reply.code(204).send();
  });

  registerAudienceImportRoute(app, services);
}

/** An audience as the document states it: times as ISO 8601. */
function summaryJson(audience: AudienceSummary): z.input<typeof audienceListSchema>['audiences'][number] {
  const { name, contacts, columns, createdAt, updatedAt, importedFrom, lastImport } = audience;
  return {
    name,
    contacts,
    columns,
    createdAt: new Date(createdAt).toISOString(),
    updatedAt: new Date(updatedAt).toISOString(),
    importedFrom,
    lastImport,
  };
}

/** Runs a use case; its refusal is said in the API's words (fields, not flags). */
async function inApiWords<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw isAppError(error) ? apiWordsOf(error) : error;
  }
}
