import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import {
  addHook,
  failedHookEvents,
  listHooks,
  redeliverHook,
  removeHook,
  showHook,
  testHook,
  type AddHookInput,
  type HooksContext,
} from '../../app/hooks.js';
import { AppError, isAppError } from '../../errors/app-error.js';
import type { DeadHookEvent, HookView } from '../../hooks/hook.js';
import { parseHookEvents } from '../../hooks/hook-events.js';
import { parseHookUrl } from '../../hooks/hook-url.js';
import { registerApiRoute } from '../api-route.js';
import { API_BASE } from '../api-server.js';
import type { ApiServices } from '../api-services.js';
import type { DocumentedRoute } from '../openapi.js';
import { withoutHostPaths } from '../upload/spool-paths.js';
import { ProblemsError, type ProblemItem } from '../problem.js';
import {
  addHookBody,
  failedHookEventsQuery,
  failedHookEventsSchema,
  hookAddedSchema,
  hookListSchema,
  hookNameParams,
  hookSchema,
  hookTestSchema,
  redeliverAnswerSchema,
} from '../schemas/hook-schemas.js';
import { problemAnswers } from '../schemas/problem-answers.js';

/** The CLI's flags addHook names in its messages, and the body's fields that say the same. */
const FIELDS_OF_FLAGS: ReadonlyMap<string, string> = new Map([
  ['--name', 'name'],
  ['--events', 'events'],
  ['--campaign', 'campaignId'],
]);

const NOT_FOUND = { ...problemAnswers(404)[404]!, description: 'No hook of that name (HOOK_NOT_FOUND)' };
const REFUSALS = problemAnswers(400, 401, 403, 429, 503);

export const listHooksRoute = {
  method: 'GET',
  path: '/hooks',
  operationId: 'listHooks',
  summary: 'The outbound hooks and their figures (`campaign hooks list --json`)',
  scope: 'read',
  responses: { 200: { description: 'The hooks, by name; never their secrets', schema: hookListSchema }, ...REFUSALS },
} satisfies DocumentedRoute;

export const addHookRoute = {
  method: 'POST',
  path: '/hooks',
  operationId: 'addHook',
  summary: 'Add an outbound hook (`campaign hooks add URL --events LIST`): its secret is answered this once',
  description:
    '`serve` POSTs the chosen events to the URL in signed batches, at least once, retried for HOOK_RETRY_HOURS ' +
    '(docs/events.md). The first hook turns the events on for every campaign.',
  scope: 'admin',
  body: addHookBody,
  responses: {
    201: { description: 'Added: the hook, and the secret of its signatures (shown this once)', schema: hookAddedSchema },
    ...REFUSALS,
    409: { ...problemAnswers(409)[409]!, description: 'A hook of that name exists (HOOK_INVALID): choose another name' },
    422: { ...problemAnswers(422)[422]!, description: 'The URL, the events or the campaign is refused (HOOK_INVALID, CAMPAIGN_NOT_FOUND)' },
  },
  responseHeaders: { 201: { Location: { description: 'The new hook: /api/v1/hooks/{name}.', required: true } } },
} satisfies DocumentedRoute;

export const getHookRoute = {
  method: 'GET',
  path: '/hooks/:name',
  operationId: 'getHook',
  summary: 'One hook and its figures',
  scope: 'read',
  params: hookNameParams,
  responses: { 200: { description: 'The hook; never its secret', schema: hookSchema }, ...REFUSALS, 404: NOT_FOUND },
} satisfies DocumentedRoute;

export const removeHookRoute = {
  method: 'DELETE',
  path: '/hooks/:name',
  operationId: 'removeHook',
  summary: 'Remove a hook with its waiting events and dead letters (`campaign hooks remove NAME`)',
  description: 'The last hook removed turns the events off for every campaign.',
  scope: 'admin',
  params: hookNameParams,
  responses: { 204: { description: 'Removed' }, ...REFUSALS, 404: NOT_FOUND },
} satisfies DocumentedRoute;

export const testHookRoute = {
  method: 'POST',
  path: '/hooks/:name/test',
  operationId: 'testHook',
  summary: 'Send the hook one signed `hook.test` event now (`campaign hooks test NAME`)',
  description: 'A receiver that does not answer 2xx is not a failed request: the answer says what the receiver said.',
  scope: 'admin',
  params: hookNameParams,
  responses: { 200: { description: "What the hook's receiver answered", schema: hookTestSchema }, ...REFUSALS, 404: NOT_FOUND },
} satisfies DocumentedRoute;

export const failedHookEventsRoute = {
  method: 'GET',
  path: '/hooks/:name/failed',
  operationId: 'listFailedHookEvents',
  summary: "A hook's dead letters: events given up on after HOOK_RETRY_HOURS (`campaign hooks failed NAME`)",
  scope: 'read',
  params: hookNameParams,
  query: failedHookEventsQuery,
  responses: { 200: { description: 'The dead letters, oldest first', schema: failedHookEventsSchema }, ...REFUSALS, 404: NOT_FOUND },
} satisfies DocumentedRoute;

export const redeliverHookRoute = {
  method: 'POST',
  path: '/hooks/:name/redeliver',
  operationId: 'redeliverHook',
  summary: "Send a hook's dead letters again (`campaign hooks redeliver NAME`)",
  description: 'They go back into its outbox with their IDs, to be delivered (and retried) like new events.',
  scope: 'admin',
  params: hookNameParams,
  responses: { 200: { description: 'How many were put back', schema: redeliverAnswerSchema }, ...REFUSALS, 404: NOT_FOUND },
} satisfies DocumentedRoute;

/** The routes of `campaign hooks …`; a hook's secret is in the answer to POST /hooks only. */
export function registerHooksRoutes(app: FastifyInstance, services: ApiServices): void {
  const { context } = services;

  registerApiRoute(app, listHooksRoute, async () => ({ hooks: (await listHooks(context)).map(hookJson) }));

  registerApiRoute(app, addHookRoute, async ({ body, caller, reply }) => {
    const { hook, secret } = await addChecked(context, body);
    context.logger.info({ hook: hook.name, events: hook.events.length, caller: caller.name }, 'hook added through the API');
    return reply
      .code(201)
      .header('location', `${API_BASE}/hooks/${encodeURIComponent(hook.name)}`)
      .header('cache-control', 'no-store')
      .send({ ...hookJson(hook), secret });
  });

  registerApiRoute(app, getHookRoute, async ({ params }) => hookJson(await showHook(context, params.name)));

  registerApiRoute(app, removeHookRoute, async ({ params, caller, reply }) => {
    await removeHook(context, params.name);
    context.logger.info({ hook: params.name, caller: caller.name }, 'hook removed through the API');
    return reply.code(204).send();
  });

  registerApiRoute(app, testHookRoute, async ({ params }) => {
    const answer = await testHook(context, params.name);
    return { ok: answer.ok, status: answer.status, reason: answer.reason ?? null };
  });

  registerApiRoute(app, failedHookEventsRoute, async ({ params, query }) => ({
    hook: params.name,
    failed: (await failedHookEvents(context, params.name, query.limit)).map(deadJson),
  }));

  registerApiRoute(app, redeliverHookRoute, async ({ params, caller }) => {
    const answer = await redeliverHook(context, params.name);
    context.logger.info({ hook: params.name, redelivered: answer.redelivered, caller: caller.name }, 'hook redelivered through the API');
    return answer;
  });
}

/** A hook as the document states it: times as ISO 8601, absent values as null. */
export function hookJson(hook: HookView): z.input<typeof hookSchema> {
  const { name, url, events, campaignId, createdAt, figures } = hook;
  return {
    name,
    url,
    events,
    campaignId: campaignId ?? null,
    createdAt: new Date(createdAt).toISOString(),
    figures: { ...figures, lagSeconds: figures.lagSeconds ?? null },
  };
}

function deadJson(dead: DeadHookEvent): z.input<typeof failedHookEventsSchema>['failed'][number] {
  return { event: dead.event, failedAt: new Date(dead.failedAt).toISOString(), reason: dead.reason };
}

/**
 * addHook, its refusals said in the API's words: every problem of the URL and the events at
 * once (422, each naming its field), a name in use a conflict (409), a campaign the service
 * does not have a refused field (422), not a missing route.
 */
async function addChecked(context: HooksContext, body: z.output<typeof addHookBody>) {
  const problems: ProblemItem[] = [];
  const check = (field: string, run: () => unknown) => {
    try {
      run();
    } catch (error) {
      if (!isAppError(error)) throw error;
      problems.push({ code: error.code, detail: `${field}: ${error.message.replace(/^(--\w+|URL):? */, '')}`, field });
    }
  };
  check('url', () => parseHookUrl(body.url));
  check('events', () => parseHookEvents(body.events));
  if (problems.length > 0) throw new ProblemsError(problems, { code: 'HOOK_INVALID' });
  if (body.name !== undefined && (await exists(context, body.name))) throw nameTaken(body.name);
  const input: AddHookInput = { url: body.url, events: body.events, campaignId: body.campaignId, name: body.name };
  try {
    return await addHook(context, input);
  } catch (error) {
    if (isAppError(error) && error.code === 'CAMPAIGN_NOT_FOUND')
      throw new ProblemsError([{ code: error.code, detail: `campaignId: ${error.message}`, field: 'campaignId' }], { status: 422 });
    // Added by another request between the check and here.
    if (isAppError(error) && error.code === 'HOOK_INVALID' && body.name !== undefined && (await exists(context, body.name)))
      throw nameTaken(body.name);
    throw isAppError(error) ? withoutHostPaths(error, FIELDS_OF_FLAGS) : error;
  }
}

async function exists(context: HooksContext, name: string): Promise<boolean> {
  try {
    await showHook(context, name);
    return true;
  } catch (error) {
    if (isAppError(error) && error.code === 'HOOK_NOT_FOUND') return false;
    throw error;
  }
}

function nameTaken(name: string): AppError {
  return new ProblemsError(
    [
      {
        code: 'HOOK_INVALID',
        detail: `name: a hook named "${name}" exists: choose another name, or DELETE /hooks/${name} first`,
        field: 'name',
      },
    ],
    { status: 409 },
  );
}
