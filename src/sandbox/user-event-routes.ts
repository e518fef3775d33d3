import type { FastifyInstance } from 'fastify';
import { badRequest, refuseEvent } from './control-replies.js';
import { inboundMessage, inboundRequestSchema, preferenceChange, preferencesRequestSchema } from './inbound-messages.js';
import { phoneDigits } from './phone-digits.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { SERVICE_WINDOW_MS } from './service-window.js';
import { userIdChange, userIdChangeRequestSchema } from './user-id-change.js';
import { inboundPayload, userIdChangePayload, userPreferencesPayload } from './webhook-payloads.js';
import type { WebhookSink } from './webhook-poster.js';

/**
 * What users do, as Meta reports it by webhook: write in, stop, resume or sign up for
 * marketing, and get a new business-scoped user ID. Control routes (`/_sandbox/…`), not Meta's.
 */
const USER_EVENT = "a user's message, preference or new user ID";
const WINDOW_HINT = 'To open a service window without a webhook, use sandbox.openServiceWindow().';

export function registerUserEventRoutes(app: FastifyInstance, runtime: SandboxRuntime, webhooks: WebhookSink | undefined): void {
  app.post('/_sandbox/inbound', (request, reply) => {
    const parsed = inboundRequestSchema.safeParse(request.body);
    if (!parsed.success) return badRequest(reply, request.body, parsed.error);
    const phoneNumberId = parsed.data.phoneNumberId ?? runtime.numbers.first;
    // Checked before anything changes: a message nobody receives should not open a window either.
    const refused = refuseEvent(reply, runtime, webhooks, phoneNumberId, USER_EVENT, WINDOW_HINT);
    if (refused !== undefined || webhooks === undefined) return refused;
    const at = runtime.now();
    const usernameUser = runtime.faults.isUsernameUser(phoneDigits(parsed.data.from) ?? '');
    const message = inboundMessage(parsed.data, phoneNumberId, at, usernameUser);
    runtime.windows.open(message.waId, at);
    webhooks.post(inboundPayload(message));
    return {
      id: message.id,
      wa_id: message.waId,
      user_id: message.userId,
      window_open_until: new Date(at + SERVICE_WINDOW_MS).toISOString(),
    };
  });

  // A user stops, resumes or signs up: later MARKETING templates to them fail 131050 (or reach them again), and the webhook goes out.
  app.post('/_sandbox/user-preferences', (request, reply) => {
    const parsed = preferencesRequestSchema.safeParse(request.body);
    if (!parsed.success) return badRequest(reply, request.body, parsed.error);
    const phoneNumberId = parsed.data.phoneNumberId ?? runtime.numbers.first;
    const refused = refuseEvent(reply, runtime, webhooks, phoneNumberId, USER_EVENT, WINDOW_HINT);
    if (refused !== undefined || webhooks === undefined) return refused;
    const waId = phoneDigits(parsed.data.from) ?? '';
    const change = preferenceChange(parsed.data, phoneNumberId, runtime.now(), runtime.faults.isUsernameUser(waId));
    // A signup is consent as a resume is: it lifts a stop.
    runtime.faults.setMarketingStopped(waId, change.value === 'stop');
    webhooks.post(userPreferencesPayload(change));
    return {
      wa_id: change.waId,
      user_id: change.userId,
      value: change.value,
      ...(change.signupId === undefined ? {} : { signup_id: change.signupId }),
    };
  });

  // Meta issues the user a new ID: statuses and messages from now on carry it, and the system message goes out.
  app.post('/_sandbox/user-id-change', (request, reply) => {
    const parsed = userIdChangeRequestSchema.safeParse(request.body);
    if (!parsed.success) return badRequest(reply, request.body, parsed.error);
    const phoneNumberId = parsed.data.phoneNumberId ?? runtime.numbers.first;
    const refused = refuseEvent(reply, runtime, webhooks, phoneNumberId, USER_EVENT);
    if (refused !== undefined || webhooks === undefined) return refused;
    const change = userIdChange(parsed.data, phoneNumberId, runtime.now());
    webhooks.post(userIdChangePayload(change));
    return { id: change.id, wa_id: phoneDigits(parsed.data.from), previous_user_id: change.previousUserId, user_id: change.userId };
  });
}
