import type { FastifyInstance } from 'fastify';
import { createCampaignDeps } from '../../app/create-campaign-deps.js';
import { registerApiRoute } from '../api-route.js';
import type { ApiServices } from '../api-services.js';
import type { DocumentedRoute } from '../openapi.js';
import { audienceNameParams } from '../schemas/audience-schemas.js';
import { audienceCampaignSpecSchema } from '../schemas/campaign-spec-schema.js';
import { problemAnswers } from '../schemas/problem-answers.js';
import { dryRunSummarySchema, sendSummarySchema } from '../schemas/send-summary-schema.js';
import { createFromUpload } from './campaign-create-route.js';

export const audienceCampaignRoute = {
  method: 'POST',
  path: '/audiences/:name/campaigns',
  operationId: 'createAudienceCampaign',
  summary: 'A campaign to a stored audience, or the segment `where` chooses (`campaign send --audience NAME [--where EXPR]`)',
  description:
    "The audience of the sending number's portfolio: its contacts `where` chooses are the campaign's rows, with their " +
    'attributes as columns (the phone as `phone`), and every check of a file send applies (opt-outs, the duplicate window, ' +
    'consent, windows and zones). `dryRun` answers the plan (200) with the first refused rows. A filter that does not parse, ' +
    'or names an attribute the audience lacks, is refused (422 AUDIENCE_WHERE_INVALID, naming the position); a segment ' +
    'with no contact too (422 AUDIENCE_NO_CONTACTS).',
  scope: 'send',
  params: audienceNameParams,
  body: audienceCampaignSpecSchema,
  responses: {
    200: { description: 'The plan of a dry run (`send --dry-run --json`) and its first refused rows', schema: dryRunSummarySchema },
    201: { description: 'Created (`send --json`); `Location` names the campaign', schema: sendSummarySchema },
    ...problemAnswers(400, 401, 403, 404, 409, 422, 429, 503),
    404: { ...problemAnswers(404)[404]!, description: 'The portfolio has no audience of that name (AUDIENCE_NOT_FOUND)' },
  },
  responseHeaders: { 201: { Location: { description: 'The new campaign: /api/v1/campaigns/{id}.', required: true } } },
} satisfies DocumentedRoute;

/** `campaign send --audience NAME --json`: the body is the spec, the path its audience; answered as POST /campaigns answers. */
export function registerAudienceCampaignRoute(app: FastifyInstance, services: ApiServices): void {
  registerApiRoute(app, audienceCampaignRoute, async ({ params: { name }, body, caller, reply }) => {
    const spec = { ...body, audience: name };
    const upload = { specText: JSON.stringify(spec), path: undefined, sha256: undefined, fileName: undefined };
    const answer = await createFromUpload(services, createCampaignDeps(services.context), caller, upload, {});
    for (const [header, value] of Object.entries(answer.headers)) reply.header(header, value);
    return reply.code(answer.status).send(answer.body);
  });
}
