import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CAPABILITY_TIERS, accountErrorsPayload, capabilityUpdatePayload, dailyLimitOf } from './account-webhooks.js';
import { badRequest, refuseEvent } from './control-replies.js';
import { wordingOf } from './failure-wording.js';
import { titleOf } from './graph-error.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import type { WebhookSink } from './webhook-poster.js';

/**
 * What Meta tells a business about itself, played on demand: an account-, app- or
 * system-level problem (`value.errors`), and a new messaging limit for the portfolio
 * (`business_capability_update`). Control routes (`/_sandbox/…`), not Meta's.
 */
const accountErrorRequestSchema = z.strictObject({
  code: z.number().int('code must be a Graph error code (a whole number)').min(1).max(9_999_999),
  /** Default: the sandbox's first number. */
  phoneNumberId: z.string().optional(),
  /** Default: Meta's title for the code, where the sandbox knows it. */
  title: z.string().min(1).max(512).optional(),
  /** Default: Meta's details for the code, where the sandbox knows them. */
  details: z.string().min(1).max(2048).optional(),
});

const capabilityUpdateRequestSchema = z.strictObject({ tier: z.enum(CAPABILITY_TIERS) });

export function registerAccountEventRoutes(app: FastifyInstance, runtime: SandboxRuntime, webhooks: WebhookSink | undefined): void {
  // An error webhook alone: nothing else changes, as Meta's own says only what went wrong.
  app.post('/_sandbox/account-error', (request, reply) => {
    const parsed = accountErrorRequestSchema.safeParse(request.body);
    if (!parsed.success) return badRequest(reply, request.body, parsed.error);
    const { code } = parsed.data;
    const title = parsed.data.title ?? titleOf(code) ?? wordingOf(code)?.title;
    const details = parsed.data.details ?? wordingOf(code)?.details;
    if (title === undefined || details === undefined) {
      const missing = [title === undefined ? 'title' : '', details === undefined ? 'details' : ''].filter((f) => f !== '').join(' and ');
      return reply.code(400).send({ error: `Invalid request: the sandbox does not know Meta's wording of code ${code}: give ${missing}` });
    }
    const phoneNumberId = parsed.data.phoneNumberId ?? runtime.numbers.first;
    const refused = refuseEvent(reply, runtime, webhooks, phoneNumberId, 'an account error');
    if (refused !== undefined || webhooks === undefined) return refused;
    webhooks.post(accountErrorsPayload({ phoneNumberId, code, title, details }));
    return { phone_number_id: phoneNumberId, code, title, details };
  });

  // Meta moves the portfolio to another limit: GET /{phone-number-id} reports it, and the webhook goes out.
  app.post('/_sandbox/capability-update', (request, reply) => {
    const parsed = capabilityUpdateRequestSchema.safeParse(request.body);
    if (!parsed.success) return badRequest(reply, request.body, parsed.error);
    const { tier } = parsed.data;
    runtime.messagingLimitTier = tier;
    webhooks?.post(capabilityUpdatePayload(tier, runtime.now()));
    return {
      tier,
      max_daily_conversations_per_business: dailyLimitOf(tier),
      webhook: webhooks === undefined ? 'no webhook URL configured' : 'posted',
    };
  });
}
