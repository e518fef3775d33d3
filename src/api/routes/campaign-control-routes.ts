import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { actionHistoryOf } from '../../app/action-history.js';
import { runControl, type CampaignControl, type ControlInputs } from '../../app/campaign-control.js';
import { readCampaignStatus, statusViewOf } from '../../app/campaign-status.js';
import { parseRetryCodes } from '../../campaigns/control/retry-codes.js';
import { retrySelection } from '../../campaigns/control/retry-selection.js';
import { SPEC_FORMATS } from '../../campaigns/spec/spec-formats.js';
import { parseStart } from '../../campaigns/spec/time-options.js';
import type { ApiCaller } from '../api-principal.js';
import { registerApiRoute, type ApiRouteDefinition } from '../api-route.js';
import type { ApiAction, ApiServices } from '../api-services.js';
import { refuseControlCharacters } from '../../text/operator-text.js';
import { API_FORMATS } from '../schemas/api-formats.js';
import { campaignIdParams } from '../schemas/campaign-params.js';
import {
  cancelAnswerSchema,
  pauseAnswerSchema,
  rescheduleAnswerSchema,
  resumeAnswerSchema,
  retryAnswerSchema,
} from '../schemas/control-answer-schemas.js';
import { problemAnswers } from '../schemas/problem-answers.js';
import { isAppError } from '../../errors/app-error.js';
import { ProblemsError, problemsOf } from '../../errors/problems-error.js';

const REFUSALS = problemAnswers(400, 401, 403, 404, 409, 429, 503);

/** What every control route shares: `POST /campaigns/{id}/<action>`, send scope. */
function control(action: ApiAction) {
  return {
    method: 'POST',
    path: `/campaigns/:id/${action}`,
    operationId: `${action}Campaign`,
    scope: 'send',
    params: campaignIdParams,
  } as const;
}

function answers(action: ApiAction, schema: z.ZodType, ...more: number[]): ApiRouteDefinition['responses'] {
  return { 200: { description: `What ${action} did, and the campaign after it`, schema }, ...REFUSALS, ...problemAnswers(...more) };
}

export const pauseCampaignRoute = {
  ...control('pause'),
  summary: 'Stop feeding a campaign (`campaign pause`): sends in flight finish, jobs already fed park',
  body: z.strictObject({
    reason: refuseControlCharacters(z.string().min(1).max(500))
      .optional()
      .meta({ description: 'Shown by status (default "paused by the operator"); one line, no control or bidi characters.' }),
  }),
  responses: answers('pause', pauseAnswerSchema),
} satisfies ApiRouteDefinition;

export const resumeCampaignRoute = {
  ...control('resume'),
  summary: 'Continue a paused campaign (`campaign resume`): its rows are fed again, the parked ones first',
  responses: answers('resume', resumeAnswerSchema),
} satisfies ApiRouteDefinition;

export const cancelCampaignRoute = {
  ...control('cancel'),
  summary: 'Stop a campaign for good (`campaign cancel`): rows not yet sent become cancelled',
  responses: answers('cancel', cancelAnswerSchema),
} satisfies ApiRouteDefinition;

export const rescheduleCampaignRoute = {
  ...control('reschedule'),
  summary: 'Move the start of a campaign that has not started yet (`campaign reschedule --at`)',
  body: z.strictObject({
    at: z.string().meta({
      description:
        'The new start, ISO 8601 with its offset (2026-12-01T09:00:00+01:00): not in the past (422 TIME_IN_PAST), at most 366 ' +
        'days ahead (422 TIME_TOO_FAR_AHEAD).',
      pattern: SPEC_FORMATS.instant,
      format: 'date-time',
    }),
  }),
  responses: answers('reschedule', rescheduleAnswerSchema, 422),
} satisfies ApiRouteDefinition;

export const retryCampaignRoute = {
  ...control('retry'),
  summary: 'Send chosen failed or unknown rows again (`campaign retry`): by default every failed row',
  body: z.strictObject({
    codes: z
      .array(z.string().meta({ pattern: API_FORMATS.retryCode }))
      .optional()
      .meta({
        description: "Only failed rows with these error codes: Meta's (`131000`) or ours (`WORKER_GAVE_UP`, `HTTP_502`, …).",
        minItems: 1,
      }),
    unknown: z
      .boolean()
      .optional()
      .meta({ description: 'Rows whose outcome is unknown (they may have been delivered). Alone: only those; with codes: those too.' }),
  }),
  responses: answers('retry', retryAnswerSchema, 410, 422),
} satisfies ApiRouteDefinition;

/** `campaign pause | resume | cancel | reschedule | retry`: runControl decides and records, as for the CLI; this renders. */
export function registerCampaignControlRoutes(app: FastifyInstance, services: ApiServices): void {
  const { context } = services;
  const controlContext = { ...actionHistoryOf(context), ledger: context.ledger };
  /** Runs the control as the caller, then reads the campaign after it. */
  const run = async <C extends CampaignControl>(control: C, id: string, caller: ApiCaller, input: ControlInputs[C]) => {
    const answer = await runControl(controlContext, { kind: caller.kind, name: caller.name }, control, id, input);
    return { answer, campaign: statusViewOf(await readCampaignStatus(context, id, services.now())) };
  };

  registerApiRoute(app, pauseCampaignRoute, async ({ params: { id }, body, caller }) => {
    const { answer, campaign } = await run('pause', id, caller, { reason: body.reason });
    return { id, alreadyPaused: answer.alreadyPaused, campaign };
  });

  registerApiRoute(app, resumeCampaignRoute, async ({ params: { id }, caller }) => {
    const { answer, campaign } = await run('resume', id, caller, {});
    return { id, wasPaused: answer.wasPaused, campaign };
  });

  registerApiRoute(app, cancelCampaignRoute, async ({ params: { id }, caller }) => {
    const { answer, campaign } = await run('cancel', id, caller, {});
    return {
      id,
      alreadyCancelled: answer.alreadyCancelled,
      cancelled: answer.cancelled,
      reason: answer.reason ?? null,
      finishedAt: answer.finishedAt === undefined ? null : new Date(answer.finishedAt).toISOString(),
      campaign,
    };
  });

  registerApiRoute(app, rescheduleCampaignRoute, async ({ params: { id }, body, caller }) => {
    const { answer, campaign } = await run('reschedule', id, caller, { startsAt: startOf(body.at, services.now()), flag: 'at' });
    return { id, startsAt: new Date(answer.startsAt).toISOString(), campaign };
  });

  registerApiRoute(app, retryCampaignRoute, async ({ params: { id }, body, caller }) => {
    const codes = body.codes === undefined ? undefined : parseRetryCodes(body.codes.join(','), 'codes');
    const { answer, campaign } = await run('retry', id, caller, { selection: retrySelection({ codes, unknown: body.unknown }) });
    return {
      id,
      requeued: answer.requeued,
      paused: answer.paused,
      held: answer.held,
      heldUntil: answer.heldUntil === 0 ? null : new Date(answer.heldUntil).toISOString(),
      usMarketing: answer.usMarketing,
      optedOut: answer.optedOut,
      experiment: answer.experiment,
      noPayload: answer.noPayload,
      campaign,
    };
  });
}

/** The new start, a refusal naming its field (`at`) as every 422 of the API does. */
function startOf(at: string, now: number): number {
  try {
    return parseStart('at', at, now);
  } catch (error) {
    if (!isAppError(error)) throw error;
    throw new ProblemsError(problemsOf(error, 'at'), { code: error.code, message: error.message });
  }
}
