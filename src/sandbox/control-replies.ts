import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { NOT_JSON } from './route-support.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import type { WebhookSink } from './webhook-poster.js';

/**
 * The refusals the sandbox's control routes share. The routes are not Meta's API, so they
 * answer in plain JSON (`{ error }`), saying what to change, rather than in Graph errors.
 */
export function badRequest(reply: FastifyReply, body: unknown, schemaError: z.ZodError | undefined): FastifyReply {
  let problem = 'invalid body';
  if (body === NOT_JSON) problem = 'the body is not valid JSON';
  else if (schemaError !== undefined) problem = z.prettifyError(schemaError);
  return reply.code(400).send({ error: `Invalid request: ${problem}` });
}

/**
 * An event for a number the sandbox does not have (400), or one that is nothing but a webhook
 * with no webhook URL to post it to (409); undefined when it can go. Checked before anything
 * changes: an event nobody receives should change nothing either. `what` names the event in
 * the 409 ("a user's message or preference"); `hint` says what else might do.
 */
export function refuseEvent(
  reply: FastifyReply,
  runtime: SandboxRuntime,
  webhooks: WebhookSink | undefined,
  phoneNumberId: string,
  what: string,
  hint = '',
): FastifyReply | undefined {
  if (!runtime.numbers.has(phoneNumberId)) {
    return reply.code(400).send({
      error: `Invalid request: phoneNumberId ${phoneNumberId} is not one of the sandbox's numbers (${runtime.numbers.all.join(', ')})`,
    });
  }
  if (webhooks !== undefined) return undefined;
  return reply.code(409).send({
    error:
      `No webhook URL is configured, so ${what} has nowhere to go: start the sandbox with ` +
      'webhooks (`campaign sandbox --webhook-url URL`, or startSandbox({ webhooks })).' +
      (hint === '' ? '' : ` ${hint}`),
  });
}
