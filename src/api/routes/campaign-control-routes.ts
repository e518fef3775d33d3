import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CampaignControls } from '../../campaigns/control/campaign-controls.js';
import { parseRetryCodes } from '../../campaigns/control/retry-codes.js';
import { SPEC_FORMATS } from '../../campaigns/spec/spec-formats.js';
import { readCampaignStatus, statusViewOf } from '../../cli/run/status-view.js';
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

/** `campaign pause | resume | cancel | reschedule | retry`: CampaignControls decides, as for the CLI; each change is recorded. */
export function registerCampaignControlRoutes(app: FastifyInstance, services: ApiServices): void {
  const controls = new CampaignControls({ ledger: services.context.ledger });
  /** The campaign after the change, and who changed it (when something changed). */
  const after = async (id: string, caller: ApiCaller, record: { action: ApiAction; detail?: string } | undefined) => {
    if (record !== undefined) await services.recordAction(id, caller, record.action, record.detail);
    return statusViewOf(await readCampaignStatus(services.context, id, services.now()));
  };

  registerApiRoute(app, pauseCampaignRoute, async ({ params: { id }, body, caller }) => {
    const reason = body.reason ?? 'paused by the operator';
    const { alreadyPaused } = await controls.pause(id, reason);
    return { id, alreadyPaused, campaign: await after(id, caller, alreadyPaused ? undefined : { action: 'pause', detail: reason }) };
  });

  registerApiRoute(app, resumeCampaignRoute, async ({ params: { id }, caller }) => {
    const { wasPaused } = await controls.resume(id);
    return { id, wasPaused, campaign: await after(id, caller, wasPaused ? { action: 'resume' } : undefined) };
  });

  registerApiRoute(app, cancelCampaignRoute, async ({ params: { id }, caller }) => {
    const result = await controls.cancel(id);
    const record = result.alreadyCancelled
      ? undefined
      : { action: 'cancel' as const, detail: `${result.cancelled} rows not yet fed cancelled` };
    return {
      id,
      alreadyCancelled: result.alreadyCancelled,
      cancelled: result.cancelled,
      reason: result.reason ?? null,
      finishedAt: result.finishedAt === undefined ? null : new Date(result.finishedAt).toISOString(),
      campaign: await after(id, caller, record),
    };
  });

  registerApiRoute(app, rescheduleCampaignRoute, async ({ params: { id }, body, caller }) => {
    const startsAt = startOf(body.at, services.now());
    await controls.reschedule(id, startsAt, 'at');
    const iso = new Date(startsAt).toISOString();
    return { id, startsAt: iso, campaign: await after(id, caller, { action: 'reschedule', detail: `starts at ${iso}` }) };
  });

  registerApiRoute(app, retryCampaignRoute, async ({ params: { id }, body, caller }) => {
    const codes = body.codes === undefined ? [] : parseRetryCodes(body.codes.join(','), 'codes');
    // `unknown` alone means unknown rows only; codes pick failed rows (as `campaign retry --unknown [--codes]`).
    const selection = { codes, failed: body.unknown !== true || body.codes !== undefined, unknown: body.unknown === true };
    const result = await controls.retry(id, selection);
    const record =
      result.requeued === 0 ? undefined : { action: 'retry' as const, detail: `${result.requeued} rows put back in the queue` };
    return {
      id,
      requeued: result.requeued,
      paused: result.paused,
      held: result.held,
      heldUntil: result.heldUntil === 0 ? null : new Date(result.heldUntil).toISOString(),
      usMarketing: result.usMarketing,
      optedOut: result.optedOut,
      experiment: result.experiment,
      noPayload: result.noPayload,
      campaign: await after(id, caller, record),
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
