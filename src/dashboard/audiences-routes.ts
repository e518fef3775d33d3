import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { AUDIENCE_NAME } from '../audiences/audience-name.js';
import type { Logger } from '../logging/logger.js';
import type { RedisAudiences } from '../redis/audiences/redis-audiences.js';
import type { DashboardAccess } from './access.js';
import { audienceDetailPage, audienceNotFoundPage } from './audiences-detail-page.js';
import { AUDIENCES_PATH, AUDIENCES_SCRIPT_PATH, audiencesPage, type PortfolioAudiences } from './audiences-page.js';
import { sendPage } from './page-answers.js';
import { PageBundleMissingError, pageAssetsDir } from './page-assets.js';

export interface AudiencePagesDeps {
  /** The audiences of every portfolio (src/redis/audiences/redis-audiences.ts). */
  store: Pick<RedisAudiences, 'portfolios' | 'list' | 'audience' | 'contactCount' | 'drop'>;
  access: Pick<DashboardAccess, 'formToken' | 'checkForm' | 'user'>;
  logger: Logger;
  now: () => number;
  /** Where the built page scripts are (default: dist/pages of the package). */
  assetsDir?: string;
}

type AudienceParams = { portfolio: string; name: string };

/** A form is small: its token. */
const FORM_BODY_LIMIT = 16 * 1024;
/** A portfolio's name as PORTFOLIOS writes it. */
const PORTFOLIO_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * The Audiences pages: every portfolio's audiences with an import form, each audience's page,
 * and its delete (a form POST with the page's token, as the campaign controls are: the pages'
 * API scope is `send`, and deleting an audience is `admin` through the API). Imports, figures
 * and exports go through the HTTP API from the page's script.
 */
export function registerAudiencePages(app: FastifyInstance, deps: AudiencePagesDeps): void {
  const { store, access } = deps;
  const script = audienceScript(deps.assetsDir ?? pageAssetsDir());
  app.get(AUDIENCES_SCRIPT_PATH, async (_request, reply) =>
    reply
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .type('text/javascript; charset=utf-8')
      .send(script),
  );

  app.get(AUDIENCES_PATH, async (_request, reply) => {
    const portfolios: PortfolioAudiences[] = await Promise.all(
      (await store.portfolios()).map(async (portfolio) => ({ portfolio, audiences: await store.list(portfolio) })),
    );
    return sendPage(reply, audiencesPage(portfolios, await access.formToken()));
  });

  app.get<{ Params: AudienceParams }>(`${AUDIENCES_PATH}/:portfolio/:name`, async (request, reply) => {
    const { portfolio, name } = request.params;
    const audience = known(request.params) ? await store.audience(portfolio, name) : undefined;
    if (audience === undefined) return sendPage(reply, audienceNotFoundPage(portfolio, name), 404);
    const contacts = await store.contactCount(portfolio, name);
    return sendPage(reply, audienceDetailPage({ portfolio, audience: { ...audience, contacts }, csrfToken: await access.formToken() }));
  });

  app.post<{ Params: AudienceParams }>(
    `${AUDIENCES_PATH}/:portfolio/:name/delete`,
    { bodyLimit: FORM_BODY_LIMIT, preHandler: access.checkForm },
    async (request, reply) => {
      const { portfolio, name } = request.params;
      const dropped = known(request.params) ? await store.drop(portfolio, name, 'deleted', deps.now()) : undefined;
      if (dropped === undefined) return sendPage(reply, audienceNotFoundPage(portfolio, name), 404);
      const { contacts } = dropped;
      const user = access.user === '' ? undefined : access.user;
      deps.logger.info({ portfolio, audience: name, contacts, user }, 'audience deleted from the Audiences page');
      return reply.code(303).header('location', AUDIENCES_PATH).send();
    },
  );
}

/** The page's script, from the build: a missing one fails the start, as the other pages' do. */
function audienceScript(dir: string): string {
  const path = join(dir, 'audiences.js');
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new PageBundleMissingError(path, { cause: error });
  }
}

/** Names of the forms the store keeps: any other names no audience (and is never made part of a key). */
function known({ portfolio, name }: AudienceParams): boolean {
  return PORTFOLIO_NAME.test(portfolio) && AUDIENCE_NAME.test(name);
}
