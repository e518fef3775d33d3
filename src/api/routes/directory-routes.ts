import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sendRateOf } from '../../config/config.js';
import { listTemplates } from '../../app/templates.js';
import { templatesJson, templateViewSchema } from '../../app/views/template-view.js';
import { portfolioOf } from '../../portfolios/portfolios.js';
import { registerApiRoute, type ApiRouteDefinition } from '../api-route.js';
import type { ApiServices } from '../api-services.js';
import { numbersAnswerSchema } from '../schemas/directory-schemas.js';
import { problemAnswers } from '../schemas/problem-answers.js';

export const listTemplatesRoute = {
  method: 'GET',
  path: '/templates',
  operationId: 'listTemplates',
  summary: 'Approved message templates, as `campaign templates list --json` prints them, with their texts for a preview',
  description:
    'From the template source of `campaign send` (TEMPLATES_FILE, else the Cloud API for WHATSAPP_BUSINESS_ACCOUNT_ID), ' +
    'cached in Redis and refreshed after TEMPLATES_REFRESH_SECONDS. No source configured: 422 CONFIG_INVALID.',
  scope: 'read',
  query: z.strictObject({
    all: z
      .enum(['true', 'false'])
      .default('false')
      .transform((value) => value === 'true')
      .meta({ description: 'Every status, not only APPROVED (`campaign templates list --all`).' }),
  }),
  responses: {
    200: {
      description: 'The templates, sorted by name then language',
      schema: z.object({
        templates: z.array(templateViewSchema),
        hidden: z.number().int().min(0).meta({ description: 'How many were left out because they are not APPROVED.' }),
      }),
    },
    ...problemAnswers(400, 401, 403, 422, 429, 503),
    502: { ...problemAnswers(502)[502]!, description: 'The Cloud API failed and no cached list is at hand (CLOUD_API_*)' },
  },
} satisfies ApiRouteDefinition;

export const listNumbersRoute = {
  method: 'GET',
  path: '/numbers',
  operationId: 'listNumbers',
  summary: 'The phone numbers this service knows, with their send rate and portfolio (for a number picker)',
  description: 'WHATSAPP_PHONE_NUMBER_ID, the numbers SEND_RATES and PORTFOLIOS name, and the numbers campaigns were sent from.',
  scope: 'read',
  responses: {
    200: { description: 'The numbers, sorted by ID', schema: numbersAnswerSchema },
    ...problemAnswers(401, 403, 429, 503),
  },
} satisfies ApiRouteDefinition;

type NumberSource = 'WHATSAPP_PHONE_NUMBER_ID' | 'SEND_RATES' | 'PORTFOLIOS' | 'campaigns';

/** `campaign templates list --json`, and the numbers a new campaign may send from. */
export function registerDirectoryRoutes(app: FastifyInstance, services: ApiServices): void {
  const { context } = services;
  registerApiRoute(app, listTemplatesRoute, async ({ query }) => {
    const listing = await listTemplates(context, { all: query.all });
    return { templates: templatesJson(listing), hidden: listing.hidden };
  });

  registerApiRoute(app, listNumbersRoute, async () => {
    const { config } = context;
    const known = new Map<string, NumberSource[]>();
    const add = (id: string, source: NumberSource) => known.set(id, [...(known.get(id) ?? []), source]);
    if (config.phoneNumberId !== undefined) add(config.phoneNumberId, 'WHATSAPP_PHONE_NUMBER_ID');
    for (const id of config.send.rates.keys()) add(id, 'SEND_RATES');
    for (const id of config.portfolios.keys()) add(id, 'PORTFOLIOS');
    for (const id of await context.ledger.phoneNumbers()) add(id, 'campaigns');
    const numbers = [...known.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([phoneNumberId, knownFrom]) => ({
        phoneNumberId,
        sendRate: sendRateOf(config.send, phoneNumberId),
        portfolio: portfolioOf(config.portfolios, phoneNumberId),
        isDefault: phoneNumberId === config.phoneNumberId,
        knownFrom,
      }));
    return { numbers, defaultPhoneNumberId: config.phoneNumberId ?? null };
  });
}
