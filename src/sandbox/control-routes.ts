import type { FastifyInstance } from 'fastify';
import { registerAccountEventRoutes } from './account-event-routes.js';
import { badRequest } from './control-replies.js';
import { faultSettingsSchema } from './faults.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { statusAfter, templateStatusPayload, templateStatusRequestSchema } from './template-status.js';
import { templateQualityPayloads, templateQualityRequestSchema } from './template-quality.js';
import { registerUserEventRoutes } from './user-event-routes.js';
import type { WebhookSink } from './webhook-poster.js';

/**
 * The sandbox's own control routes under `/_sandbox/`: NOT part of Meta's API. They let
 * tests, the demo and people poking with curl inspect and steer the simulator, so they
 * need no token and answer in plain JSON rather than Graph errors (control-replies.ts).
 */
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

  registerUserEventRoutes(app, runtime, webhooks);
  registerAccountEventRoutes(app, runtime, webhooks);

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
