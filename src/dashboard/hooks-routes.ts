import type { FastifyInstance, FastifyReply } from 'fastify';
import { addHook, failedHookEvents, listHooks, redeliverHook, removeHook, showHook, testHook, type HooksContext } from '../app/hooks.js';
import { isAppError, type AppError } from '../errors/app-error.js';
import { HOOK_NAME } from '../hooks/hook-name.js';
import type { Logger } from '../logging/logger.js';
import type { DashboardAccess } from './access.js';
import { FAILED_SHOWN, hookDetailPage, hookNotFoundPage, type HookDetailOptions } from './hooks-detail-page.js';
import { EVENT_FIELD_PREFIX, HOOKS_PATH, hookPath, hooksPage, type HookFormValues } from './hooks-page.js';
import { sendPage } from './page-answers.js';

export interface HookPagesDeps {
  /** What `campaign hooks …` runs on: the config (QUEUE_PREFIX) and the dashboard's Redis connection. */
  context: HooksContext;
  access: Pick<DashboardAccess, 'formToken' | 'checkForm' | 'user'>;
  logger: Logger;
}

type NameParams = { name: string };
type FormBody = Record<string, unknown> | undefined;

/** A form is small: its token, a URL, the events' boxes and two names. */
const FORM_BODY_LIMIT = 16 * 1024;
/** The CLI's flags the hook use cases name in their messages, and the form's labels that say the same. */
const LABELS_OF_FLAGS: readonly [string, string][] = [
  ['--name', 'Name'],
  ['--events', 'Events'],
  ['--campaign', 'Campaign'],
];

/**
 * The Hooks pages: the hooks with their figures and an add form, each hook's page with its
 * dead letters, and its test, redeliver and remove buttons. Each is a form POST with the page's
 * token, running what `campaign hooks …` runs (the pages' API scope is `send`; hooks are
 * `admin` through the API, as deleting an audience is). Adding answers the page with the
 * secret, the one time it is shown; the others redirect (303) or show the outcome.
 */
export function registerHookPages(app: FastifyInstance, deps: HookPagesDeps): void {
  const { context, access, logger } = deps;
  const form = { bodyLimit: FORM_BODY_LIMIT, preHandler: access.checkForm };
  const user = () => (access.user === '' ? undefined : access.user);

  app.get<{ Querystring: { removed?: string } }>(HOOKS_PATH, async (request, reply) => {
    const removed = request.query.removed;
    const options = { hooks: await listHooks(context), csrfToken: await access.formToken() };
    return sendPage(reply, hooksPage(removed !== undefined && HOOK_NAME.test(removed) ? { ...options, removed } : options));
  });

  app.post<{ Body: FormBody }>(HOOKS_PATH, form, async (request, reply) => {
    const values = formValues(request.body ?? {});
    try {
      const added = await addHook(context, {
        url: values.url,
        events: values.events,
        campaignId: values.campaignId === '' ? undefined : values.campaignId,
        name: values.name === '' ? undefined : values.name,
      });
      logger.info({ hook: added.hook.name, events: added.hook.events.length, user: user() }, 'hook added from the Hooks page');
      return sendPage(reply, hooksPage({ hooks: await listHooks(context), csrfToken: await access.formToken(), added }));
    } catch (error) {
      if (!isAppError(error) || !['HOOK_INVALID', 'CAMPAIGN_NOT_FOUND'].includes(error.code)) throw error;
      const refused = { message: inPageWords(error), values };
      return sendPage(reply, hooksPage({ hooks: await listHooks(context), csrfToken: await access.formToken(), refused }), 422);
    }
  });

  app.get<{ Params: NameParams; Querystring: { redelivered?: string } }>(`${HOOKS_PATH}/:name`, async (request, reply) => {
    const redelivered = /^\d{1,9}$/.test(request.query.redelivered ?? '') ? Number(request.query.redelivered) : undefined;
    return detail(reply, request.params.name, redelivered === undefined ? {} : { redelivered });
  });

  app.post<{ Params: NameParams; Body: FormBody }>(`${HOOKS_PATH}/:name/test`, form, async (request, reply) => {
    const { name } = request.params;
    const tested = await orNotFound(reply, name, () => testHook(context, name));
    if (tested === undefined) return reply;
    logger.info({ hook: name, ok: tested.ok, status: tested.status, user: user() }, 'hook tested from the Hooks page');
    return detail(reply, name, { tested });
  });

  app.post<{ Params: NameParams; Body: FormBody }>(`${HOOKS_PATH}/:name/redeliver`, form, async (request, reply) => {
    const { name } = request.params;
    const answer = await orNotFound(reply, name, () => redeliverHook(context, name));
    if (answer === undefined) return reply;
    logger.info({ hook: name, redelivered: answer.redelivered, user: user() }, 'hook redelivered from the Hooks page');
    return reply
      .code(303)
      .header('location', `${hookPath(name)}?redelivered=${answer.redelivered}`)
      .send();
  });

  app.post<{ Params: NameParams; Body: FormBody }>(`${HOOKS_PATH}/:name/remove`, form, async (request, reply) => {
    const { name } = request.params;
    if ((await orNotFound(reply, name, async () => removeHook(context, name).then(() => true))) === undefined) return reply;
    logger.info({ hook: name, user: user() }, 'hook removed from the Hooks page');
    return reply
      .code(303)
      .header('location', `${HOOKS_PATH}?removed=${encodeURIComponent(name)}`)
      .send();
  });

  /** The hook's page (404 for a name that is none), with what was just done. */
  async function detail(reply: FastifyReply, name: string, done: Pick<HookDetailOptions, 'tested' | 'redelivered'>): Promise<FastifyReply> {
    const shown = await orNotFound(reply, name, async () => {
      // The dead letters first: a batch buried between the two reads is then in the figures too, never listed but uncounted.
      const failed = await failedHookEvents(context, name, FAILED_SHOWN);
      return { hook: await showHook(context, name), failed };
    });
    if (shown === undefined) return reply;
    return sendPage(reply, hookDetailPage({ ...shown, ...done, csrfToken: await access.formToken() }));
  }
}

/** What `run` answers, or undefined once the 404 page is sent for a hook of no such name. */
async function orNotFound<T>(reply: FastifyReply, name: string, run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run();
  } catch (error) {
    if (!isAppError(error) || error.code !== 'HOOK_NOT_FOUND') throw error;
    sendPage(reply, hookNotFoundPage(name), 404);
    return undefined;
  }
}

/** The add form's fields; a field sent twice, or not as text, counts as empty. */
function formValues(body: Record<string, unknown>): HookFormValues {
  const text = (field: string) => (typeof body[field] === 'string' ? body[field].trim() : '');
  const events = Object.keys(body)
    .filter((field) => field.startsWith(EVENT_FIELD_PREFIX))
    .map((field) => field.slice(EVENT_FIELD_PREFIX.length));
  return { url: text('url'), events, campaignId: text('campaignId'), name: text('name') };
}

/** A refusal in the form's words: its labels, not the CLI's flags. */
function inPageWords(error: AppError): string {
  return LABELS_OF_FLAGS.reduce((text, [flag, label]) => text.split(flag).join(label), error.message);
}
