import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { RETARGET_STATUSES } from '../../campaigns/retarget/retarget-rule.js';
import { retargetCampaign } from '../../app/retarget-campaign.js';
import { messageFlagsSchema } from '../../campaigns/spec/campaign-flags.js';
import { FLAG_FIELD_NAMES } from '../../campaigns/spec/field-names.js';
import { parseDuration } from '../../campaigns/spec/time-options.js';
import { API_BASE } from '../api-server.js';
import { registerApiRoute } from '../api-route.js';
import type { DocumentedRoute } from '../openapi.js';
import type { ApiServices } from '../api-services.js';
import { campaignIdParams } from '../schemas/campaign-params.js';
import { problemAnswers } from '../schemas/problem-answers.js';
import { sendSummarySchema } from '../schemas/send-summary-schema.js';
import { summaryAnswer } from './summary-answer.js';
import { SPEC_FORMATS } from '../../campaigns/spec/spec-formats.js';
import { withFields } from '../../campaigns/spec/spec-problems.js';
import { isAppError, type AppError } from '../../errors/app-error.js';
import { ProblemsError, problemsOf } from '../../errors/problems-error.js';
import { statusOf } from '../problem.js';
import { CLICK_RULES, messageChoice } from '../schemas/spec-rules.js';

export const retargetCampaignRoute = {
  method: 'POST',
  path: '/campaigns/:id/retarget',
  operationId: 'retargetCampaign',
  summary: 'A new campaign from the chosen rows of a finished one (`campaign retarget`): same number, columns and values',
  description:
    'The rows go through the same checks as a send (opt-outs, the duplicate window, the plan). The message is a template ' +
    '(`template` and `language`) or a text (`text`), named as in POST /campaigns; `params`, `param`, `headerTextColumn`, ' +
    '`headerImageColumn` and `buttonUrlColumn` map its variables onto the source’s columns (its phone column and the columns ' +
    'its own message read). Nothing is created when no row is chosen (422 RETARGET_NO_ROWS).',
  scope: 'send',
  params: campaignIdParams,
  body: z
    .strictObject({
      status: z.enum(RETARGET_STATUSES).meta({
        description:
          'Which rows: `failed`; `delivered-not-read` (delivered, no read); `not-replied` (sent, delivered or read, no reply); ' +
          '`clicked` (its tracked link was clicked); `not-clicked` (sent, delivered or read, no click recorded).',
      }),
      after: z.string().max(32).optional().meta({
        description: 'Only rows delivered, sent or failed at least this long ago: `24h`, `90m`, `2d`.',
        pattern: SPEC_FORMATS.duration,
      }),
      // The message and its columns, as `campaign retarget`'s flags (and POST /campaigns' fields) name them.
      ...messageFlagsSchema.shape,
    })
    .meta({ ...messageChoice({ endpoint: false }), dependentSchemas: CLICK_RULES }),
  responses: {
    201: {
      description: 'The new campaign, as `campaign retarget --json` (and `send --json`) prints it; Location names it',
      schema: sendSummarySchema,
    },
    ...problemAnswers(400, 401, 403, 404, 409, 410, 422, 429, 503),
    409: { ...problemAnswers(409)[409]!, description: 'The campaign is not finished yet (CAMPAIGN_NOT_FINISHED)' },
    422: {
      ...problemAnswers(422)[422]!,
      description:
        'No row is chosen (RETARGET_NO_ROWS), or the message does not fit ' +
        '(OPTION_INVALID, TEMPLATE_MAPPING_INVALID, TEMPLATE_SLOT_UNFILLED, …)',
    },
  },
  responseHeaders: { 201: { Location: { description: 'The new campaign: /api/v1/campaigns/{id}.', required: true } } },
} satisfies DocumentedRoute;

/** `campaign retarget ID --json`: retargetCampaign, its refusals naming the body's fields; the new campaign is recorded. */
export function registerCampaignRetargetRoute(app: FastifyInstance, services: ApiServices): void {
  registerApiRoute(app, retargetCampaignRoute, async ({ params: { id }, body, caller, reply }) => {
    // The rest of the body is the new campaign's message, named as CampaignFlags names it.
    const { status, after, ...message } = body;
    const rule = { status, afterMs: after === undefined ? undefined : afterOf(after) };
    const result = await retargetCampaign(services.context, {
      campaignId: id,
      rule,
      message,
      names: FLAG_FIELD_NAMES,
      record: (campaignId, action, detail) => services.recordAction(campaignId, caller, action, detail),
    }).catch((error: unknown) => {
      throw isAppError(error) ? everyProblemNamed(error) : error;
    });
    return reply
      .code(201)
      .header('location', `${API_BASE}/campaigns/${encodeURIComponent(result.id)}`)
      .send(summaryAnswer(result));
  });
}

/** A refusal of the message (422) as problems each naming its field, as POST /campaigns names them. */
function everyProblemNamed(error: AppError): AppError {
  const status = error instanceof ProblemsError && error.status !== undefined ? error.status : statusOf(error.code);
  if (status !== 422) return error;
  const fallback = error.code === 'RETARGET_NO_ROWS' ? 'status' : 'template';
  return new ProblemsError(withFields(problemsOf(error), FLAG_FIELD_NAMES, fallback), { code: error.code, message: error.message });
}

function afterOf(after: string): number {
  try {
    return parseDuration('after', after);
  } catch (error) {
    if (!isAppError(error)) throw error;
    throw new ProblemsError(problemsOf(error, 'after'), { code: error.code, message: error.message });
  }
}
