import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { changeOptOut, listOptOuts, optOutsTarget, type OptOutsOptions } from '../../app/opt-outs.js';
import { optOutJson } from '../../app/views/opt-out-view.js';
import { phoneRefusalCode, toE164 } from '../../phone/e164.js';
import { registerApiRoute, type ApiRouteDefinition } from '../api-route.js';
import type { ApiServices } from '../api-services.js';
import { optOutsChangeSchema, optOutsListSchema } from '../schemas/directory-schemas.js';
import { API_FORMATS } from '../schemas/api-formats.js';
import { problemAnswers } from '../schemas/problem-answers.js';
import { ProblemsError, type ProblemItem } from '../problem.js';

/** Refusals name the fields as the caller sent them. */
const FIELDS = { portfolio: 'portfolio', phoneNumberId: 'phoneNumberId' };

/** Which portfolio's opt-outs: named, or through one of its numbers; neither: WHATSAPP_PHONE_NUMBER_ID's. */
const target = {
  portfolio: z.string().optional().meta({ description: 'The portfolio, as PORTFOLIOS names it.' }),
  phoneNumberId: z.string().optional().meta({ description: 'A number of the portfolio (default WHATSAPP_PHONE_NUMBER_ID).' }),
};

const phonesBody = z.strictObject({
  ...target,
  phones: z
    .array(z.string().meta({ pattern: API_FORMATS.e164 }))
    .min(1)
    .max(1000)
    .meta({ description: 'The recipients, `+<country><number>`; each is checked, and every bad one is listed (422).' }),
});

export const listOptOutsRoute = {
  method: 'GET',
  path: '/optouts',
  operationId: 'listOptOuts',
  summary: "A portfolio's opt-outs, as `campaign optouts list --json` prints them",
  description: 'MARKETING templates and texts of every number of the portfolio skip these recipients (OPTED_OUT).',
  scope: 'read',
  query: z.strictObject(target),
  responses: {
    200: { description: 'The opt-outs, oldest first', schema: optOutsListSchema },
    ...problemAnswers(400, 401, 403, 422, 429, 503),
  },
} satisfies ApiRouteDefinition;

export const addOptOutsRoute = {
  method: 'POST',
  path: '/optouts',
  operationId: 'addOptOuts',
  summary: 'Opt recipients out of marketing on every number of a portfolio (`campaign optouts add`)',
  scope: 'admin',
  body: phonesBody,
  responses: {
    200: { description: 'Which were opted out now, and which already were', schema: optOutsChangeSchema },
    ...problemAnswers(400, 401, 403, 422, 429, 503),
  },
} satisfies ApiRouteDefinition;

export const removeOptOutsRoute = {
  method: 'DELETE',
  path: '/optouts',
  operationId: 'removeOptOuts',
  summary: 'Lift the opt-outs of recipients who asked for marketing again (`campaign optouts remove`)',
  scope: 'admin',
  body: phonesBody,
  responses: {
    200: { description: 'Which are no longer opted out, and which were not', schema: optOutsChangeSchema },
    ...problemAnswers(400, 401, 403, 422, 429, 503),
  },
} satisfies ApiRouteDefinition;

/** `campaign optouts list | add | remove`, per portfolio, several recipients at a time. */
export function registerOptOutsRoutes(app: FastifyInstance, services: ApiServices): void {
  const { context } = services;
  registerApiRoute(app, listOptOutsRoute, async ({ query }) => {
    const list = await listOptOuts(context, query, FIELDS);
    return { portfolio: list.portfolio, phoneNumberId: list.phoneNumberId ?? null, optOuts: list.optOuts.map(optOutJson) };
  });

  const change = async (body: z.output<typeof phonesBody>, how: 'add' | 'remove') => {
    const options: OptOutsOptions = { portfolio: body.portfolio, phoneNumberId: body.phoneNumberId };
    const where = optOutsTarget(context, options, FIELDS);
    const phones = e164sOf(body.phones);
    const changed: string[] = [];
    const unchanged: string[] = [];
    for (const phone of phones) ((await changeOptOut(context, where, phone, how)) ? changed : unchanged).push(phone);
    return { portfolio: where.portfolio, phoneNumberId: where.phoneNumberId ?? null, changed, unchanged };
  };
  registerApiRoute(app, addOptOutsRoute, async ({ body }) => change(body, 'add'));
  registerApiRoute(app, removeOptOutsRoute, async ({ body }) => change(body, 'remove'));
}

/**
 * Each recipient in E.164 (once each), or every one refused, listed: OPTION_INVALID when it is
 * not of E.164's form (the document's pattern), PHONE_NOT_IN_PLAN when it is but its country's
 * numbering plan has no such number (which only libphonenumber's data can say). 422 either way.
 */
function e164sOf(raws: readonly string[]): string[] {
  const phones = new Set<string>();
  const problems: ProblemItem[] = [];
  raws.forEach((raw, i) => {
    const phone = toE164(raw);
    if (phone.ok) phones.add(phone.e164);
    else
      problems.push({
        code: phoneRefusalCode(raw),
        detail: `phones[${i}] "${raw.slice(0, 40)}": ${phone.reason}`,
        field: `phones.${i}`,
      });
  });
  if (problems.length > 0)
    throw new ProblemsError(problems, {
      code: problems.every((p) => p.code === 'PHONE_NOT_IN_PLAN') ? 'PHONE_NOT_IN_PLAN' : 'OPTION_INVALID',
    });
  return [...phones];
}
