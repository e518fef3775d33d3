import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from '../logging/logger.js';
import type { ClickLinks } from './click-links.js';
import { CLICK_PATH } from './click-template.js';

/** What a link that leads nowhere shows: nothing about why (a token never made, mistyped, or purged). */
const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Link not found</title></head>' +
  '<body><h1>Link not found</h1><p>This link does not lead anywhere.</p></body></html>\n';
const UNAVAILABLE_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Try again</title></head>' +
  '<body><h1>Try again in a moment</h1><p>This link cannot be followed right now.</p></body></html>\n';

/** A failing Redis is logged once per this long, not once per click. */
const FAILURE_LOG_INTERVAL_MS = 10_000;

/**
 * `GET /c/{token}`, on `serve` for the recipients of tracked links (no password: they are not
 * operators): the click is recorded on its row, then the visitor is sent on to the row's
 * destination (302, never cached, no Referer carried along). A token no campaign holds is a plain
 * 404 page; Redis away is 503, so the visitor can try again. No HEAD route: a HEAD is no click.
 */
export function registerClickRoute(app: FastifyInstance, links: ClickLinks, logger: Logger, now: () => number = Date.now): void {
  let loggedAt = Number.NEGATIVE_INFINITY;
  app.get(`${CLICK_PATH}*`, { exposeHeadRoute: false }, async (request, reply) => {
    const token = (request.params as { '*'?: string })['*'] ?? '';
    let click: Awaited<ReturnType<ClickLinks['click']>>;
    try {
      click = await links.click(token);
    } catch (error) {
      if (now() - loggedAt >= FAILURE_LOG_INTERVAL_MS) {
        loggedAt = now();
        logger.error({ err: error }, 'a click could not be recorded (Redis); the visitor was asked to try again');
      }
      return page(reply.header('retry-after', '5'), 503, UNAVAILABLE_PAGE);
    }
    if (click === undefined) return page(reply, 404, NOT_FOUND_PAGE);
    return reply
      .code(302)
      .header('location', click.url)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send();
  });
}

function page(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(body);
}
