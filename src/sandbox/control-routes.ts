import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { faultSettingsSchema } from './faults.js';
import { inboundMessage, inboundRequestSchema, preferenceChange, preferencesRequestSchema } from './inbound-messages.js';
import { phoneDigits } from './phone-digits.js';
import { NOT_JSON } from './route-support.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { SERVICE_WINDOW_MS } from './service-window.js';
import { inboundPayload, userPreferencesPayload } from './webhook-payloads.js';
import { statusAfter, templateStatusPayload, templateStatusRequestSchema } from './template-status.js';
import { templateQualityPayloads, templateQualityRequestSchema } from './template-quality.js';
import type { WebhookSink } from './webhook-poster.js';

/**
 * The sandbox's own control routes under `/_sandbox/`: NOT part of Meta's API. They let
 * tests, the demo and people poking with curl inspect and steer the simulator, so they
 * need no token and answer in plain JSON rather than Graph errors.
 */
function badRequest(reply: FastifyReply, body: unknown, schemaError: z.ZodError | undefined): FastifyReply {
  let problem = 'invalid body';
  if (body === NOT_JSON) problem = 'the body is not valid JSON';
  else if (schemaError !== undefined) problem = z.prettifyError(schemaError);
  return reply.code(400).send({ error: `Invalid request: ${problem}` });
}

/** A user's event for a number the sandbox does not have (400), or with no webhook URL to post it to (409); undefined when it can go. */
function refuseUserEvent(
  reply: FastifyReply,
  runtime: SandboxRuntime,
  webhooks: WebhookSink | undefined,
  phoneNumberId: string,
): FastifyReply | undefined {
  if (!runtime.numbers.has(phoneNumberId)) {
    return reply.code(400).send({
      error: `Invalid request: phoneNumberId ${phoneNumberId} is not one of the sandbox's numbers (${runtime.numbers.all.join(', ')})`,
    });
  }
  if (webhooks !== undefined) return undefined;
  return reply.code(409).send({
    error:
      "No webhook URL is configured, so a user's message or preference has nowhere to go: start the sandbox with " +
      'webhooks (`campaign sandbox --webhook-url URL`, or startSandbox({ webhooks })). ' +
      'To open a service window without a webhook, use sandbox.openServiceWindow().',
  });
}

/** A user writing in, and a user stopping or resuming marketing: what Meta reports by webhook. */
function registerUserRoutes(app: FastifyInstance, runtime: SandboxRuntime, webhooks: WebhookSink | undefined): void {
  app.post('/_sandbox/inbound', (request, reply) => {
    const parsed = inboundRequestSchema.safeParse(request.body);
    if (!parsed.success) return badRequest(reply, request.body, parsed.error);
    const phoneNumberId = parsed.data.phoneNumberId ?? runtime.numbers.first;
    // Checked before anything changes: a message nobody receives should not open a window either.
    const refused = refuseUserEvent(reply, runtime, webhooks, phoneNumberId);
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

  // A user stops or resumes marketing: later MARKETING templates to them fail 131050 (or reach them again), and the webhook goes out.
  app.post('/_sandbox/user-preferences', (request, reply) => {
    const parsed = preferencesRequestSchema.safeParse(request.body);
    if (!parsed.success) return badRequest(reply, request.body, parsed.error);
    const phoneNumberId = parsed.data.phoneNumberId ?? runtime.numbers.first;
    const refused = refuseUserEvent(reply, runtime, webhooks, phoneNumberId);
    if (refused !== undefined || webhooks === undefined) return refused;
    const waId = phoneDigits(parsed.data.from) ?? '';
    const change = preferenceChange(parsed.data, phoneNumberId, runtime.now(), runtime.faults.isUsernameUser(waId));
    runtime.faults.setMarketingStopped(waId, change.value === 'stop');
    webhooks.post(userPreferencesPayload(change));
    return { wa_id: change.waId, user_id: change.userId, value: change.value };
  });
}

export function registerControlRoutes(app: FastifyInstance, runtime: SandboxRuntime, webhooks: WebhookSink | undefined): void {
  app.get('/_sandbox/healthz', () => ({ status: 'ok' }));

  app.get('/_sandbox/accepted', () => runtime.log.all);

  app.get('/_sandbox/stats', () => runtime.stats());

  app.get('/_sandbox/faults', () => runtime.faults.current);

  app.post('/_sandbox/faults', (request, reply) => {
    const parsed = faultSettingsSchema.safeParse(request.body ?? {});
    if (!parsed.success) return badRequest(reply, request.body, parsed.error);
    runtime.setFaults(parsed.data);
    return runtime.faults.current;
  });

  registerUserRoutes(app, runtime, webhooks);

  // Meta changing a template's status: its sends answer as Meta's would, and the webhook goes out.
  app.post('/_sandbox/template-status', (request, reply) => {
    const parsed = templateStatusRequestSchema.safeParse(request.body);
    if (!parsed.success) return badRequest(reply, request.body, parsed.error);
    const { name, language, event } = parsed.data;
    const entry = runtime.templates.find(name, language);
    if (entry === undefined) return reply.code(404).send({ error: `No template ${name} (${language}) in the sandbox's catalogue` });
    const status = statusAfter(event, entry.template.status);
    runtime.templates.setStatus(entry, status);
    const sent = webhooks !== undefined;
    webhooks?.post(templateStatusPayload(parsed.data, entry.template.id ?? '0', runtime.now()));
    return { name, language, status, webhook: sent ? 'posted' : 'no webhook URL configured' };
  });

  // Meta changing a template's quality score or category: its sends follow, and the webhooks go out.
  app.post('/_sandbox/template-quality', (request, reply) => {
    const parsed = templateQualityRequestSchema.safeParse(request.body);
    if (!parsed.success) return badRequest(reply, request.body, parsed.error);
    const { name, language } = parsed.data;
    const entry = runtime.templates.find(name, language);
    if (entry === undefined) return reply.code(404).send({ error: `No template ${name} (${language}) in the sandbox's catalogue` });
    const { template } = entry;
    const before = { templateId: template.id ?? '0', quality: template.quality_score?.score, category: template.category };
    runtime.templates.setQuality(entry, parsed.data);
    for (const body of templateQualityPayloads(parsed.data, before, runtime.now())) webhooks?.post(body);
    const after = entry.template;
    const webhook = webhooks !== undefined ? 'posted' : 'no webhook URL configured';
    return { name, language, quality: after.quality_score?.score ?? null, category: after.category ?? null, webhook };
  });

  app.post('/_sandbox/reset', (_request, reply) => {
    runtime.reset();
    return reply.code(204).send();
  });
}
