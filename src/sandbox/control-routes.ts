import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { faultSettingsSchema } from './faults.js';
import { NOT_JSON } from './route-support.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { SERVICE_WINDOW_MS } from './service-window.js';
import { phoneDigits } from './phone-digits.js';

/**
 * The sandbox's own control routes under `/_sandbox/`: NOT part of Meta's API. They let
 * tests, the demo and people poking with curl inspect and steer the simulator, so they
 * need no token and answer in plain JSON rather than Graph errors.
 */
const inboundSchema = z.strictObject({
  from: z.string().refine((value) => phoneDigits(value) !== undefined, 'must be a phone number (7–15 digits)'),
  text: z.string().optional(),
});

function badRequest(reply: FastifyReply, body: unknown, schemaError: z.ZodError | undefined): FastifyReply {
  let problem = 'invalid body';
  if (body === NOT_JSON) problem = 'the body is not valid JSON';
  else if (schemaError !== undefined) problem = z.prettifyError(schemaError);
  return reply.code(400).send({ error: `Invalid request: ${problem}` });
}

export function registerControlRoutes(app: FastifyInstance, runtime: SandboxRuntime): void {
  app.get('/_sandbox/healthz', () => ({ status: 'ok' }));

  app.get('/_sandbox/accepted', () => runtime.log.all);

  app.get('/_sandbox/stats', () => runtime.stats());

  app.get('/_sandbox/faults', () => runtime.faults.current);

  app.post('/_sandbox/faults', (request, reply) => {
    const parsed = faultSettingsSchema.safeParse(request.body ?? {});
    if (!parsed.success) return badRequest(reply, request.body, parsed.error);
    runtime.faults.set(parsed.data);
    return runtime.faults.current;
  });

  app.post('/_sandbox/inbound', (request, reply) => {
    const parsed = inboundSchema.safeParse(request.body);
    if (!parsed.success) return badRequest(reply, request.body, parsed.error);
    const at = runtime.now();
    const waId = runtime.windows.open(parsed.data.from, at);
    return { wa_id: waId, window_open_until: new Date(at + SERVICE_WINDOW_MS).toISOString() };
  });

  app.post('/_sandbox/reset', (_request, reply) => {
    runtime.reset();
    return reply.code(204).send();
  });
}
