import type { FastifyReply } from 'fastify';
import { html, type SafeHtml } from './html.js';
import { PAGE_HEADERS, page } from './layout.js';

/** A page as the answer, with the pages' headers (or a page's own, as the New campaign page's preview needs). */
export function sendPage(
  reply: FastifyReply,
  body: SafeHtml,
  status = 200,
  headers: Readonly<Record<string, string>> = PAGE_HEADERS,
): FastifyReply {
  return reply.code(status).headers(headers).type('text/html; charset=utf-8').send(body.value);
}

/** The page of a campaign ID that names none (404). */
export function notFoundPage(reply: FastifyReply, id: string): FastifyReply {
  const body = page({
    title: 'Not found',
    body: html`<h1>No campaign ${id}</h1><p>There is no campaign with this ID under this QUEUE_PREFIX. <a href="/">All campaigns</a></p>`,
  });
  return sendPage(reply, body, 404);
}
