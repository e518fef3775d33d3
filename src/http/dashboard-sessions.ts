import type { FastifyRequest } from 'fastify';

/**
 * Why the dashboard refused a page's request: 401 (the basic auth, with the challenge that makes a browser send it), 403
 * (the CSRF token or another site), 429 (too many wrong passwords: with Retry-After). `headers` go into the answer.
 */
export interface SessionRefusal {
  refused: string;
  status: 401 | 403 | 429;
  headers?: Readonly<Record<string, string>>;
}

/**
 * The dashboard's check of its own pages' requests (basic auth, CSRF header, same site): the
 * dashboard implements it and the HTTP API asks it, so neither imports the other.
 */
export interface DashboardSessions {
  apiSession(request: FastifyRequest): Promise<{ user: string } | SessionRefusal>;
}
