import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../logging/logger.js';
import type { DashboardSessions, SessionRefusal } from '../http/dashboard-sessions.js';
import { BASIC_AUTH_CHALLENGE, basicLoginMatches, basicLoginOf, type DashboardCredentials } from './basic-auth.js';
import { CSRF_FIELD, CSRF_HEADER, crossSite, type CsrfTokens } from './csrf.js';
import { html } from './html.js';
import { PAGE_HEADERS, page } from './layout.js';
import type { LoginThrottle, LoginVerdict } from './login-throttle.js';

/** A flood of refused requests costs one log line per this long. */
const REFUSAL_LOG_INTERVAL_MS = 10_000;

/**
 * Who may use the dashboard, and which POSTs it obeys: HTTP basic auth on every dashboard
 * route when DASHBOARD_PASSWORD is set (nothing when it is not: `serve` then listens on
 * loopback only, see exposure.ts), and on control POSTs a CSRF token and no cross-site
 * origin, with or without a password (a page on another site could otherwise post to a
 * dashboard on the operator's own 127.0.0.1). Both places that check the password, the pages and
 * the pages' calls to the HTTP API (apiSession), go through one login throttle: neither is a way
 * around it.
 */
export class DashboardAccess implements DashboardSessions {
  readonly #credentials: DashboardCredentials | undefined;
  readonly #csrf: CsrfTokens;
  readonly #throttle: LoginThrottle;
  readonly #logger: Logger;
  #lastRefusalLog = Number.NEGATIVE_INFINITY;
  #refusals = 0;

  constructor(options: { credentials: DashboardCredentials | undefined; csrf: CsrfTokens; throttle: LoginThrottle; logger: Logger }) {
    this.#credentials = options.credentials;
    this.#csrf = options.csrf;
    this.#throttle = options.throttle;
    this.#logger = options.logger;
  }

  /** The user a form's token is bound to ('' without a password). */
  get user(): string {
    return this.#credentials?.user ?? '';
  }

  /** A token for the forms of a page served now. */
  formToken(): Promise<string> {
    return this.#csrf.issue(this.user);
  }

  /**
   * onRequest: 401 with a basic-auth challenge unless the credentials match (or none are set); 429 with Retry-After,
   * whatever the credentials, while the login throttle refuses the client's address or the user.
   */
  readonly authenticate = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const verdict = await this.#login(request);
    if (verdict === 'open') return;
    if (typeof verdict === 'object') {
      // Not logged per refusal: the throttle logged the lock once.
      await reply
        .code(429)
        .header('retry-after', String(verdict.retryAfterSeconds))
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send(`Refused: ${throttledWhy(verdict)}.\n`);
      return;
    }
    // Only whether a header came: never its content.
    this.#noteRefusal(request, request.headers.authorization === undefined ? 'no credentials' : 'wrong credentials', 401);
    await reply
      .code(401)
      .header('www-authenticate', BASIC_AUTH_CHALLENGE)
      .header('cache-control', 'no-store')
      .type('text/plain; charset=utf-8')
      .send('The campaigns page needs the dashboard user and password (DASHBOARD_USER, DASHBOARD_PASSWORD).\n');
  };

  /** preHandler of a control POST: 403 when it came from another site or lacks a valid form token. */
  readonly checkForm = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    let why: string | undefined;
    if (crossSite(request.headers)) why = 'it came from another site';
    else {
      const body = request.body;
      const token = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[CSRF_FIELD] : undefined;
      if (!(await this.#csrf.verify(token, this.user)))
        why = token === undefined ? 'the form token is missing' : 'the form token is not valid (or is older than 12 hours)';
    }
    if (why === undefined) return;
    this.#noteRefusal(request, why, 403);
    const refusal = html`<p class="error">This control was not run: ${why}. Open the campaign's page again and use its buttons.</p>`;
    const body = page({ title: 'Refused', body: html`<h1>Refused</h1>${refusal}<p><a href="/">Campaigns</a></p>` });
    await reply.code(403).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(body.value);
  };

  /**
   * A request of the dashboard's own pages to the HTTP API: the page's basic auth (when a
   * password is set), its CSRF token in the `X-CSRF-Token` header, and no cross-site origin.
   * The user it acts for, or why it is refused.
   */
  async apiSession(request: FastifyRequest): Promise<{ user: string } | SessionRefusal> {
    const verdict = await this.#login(request);
    if (typeof verdict === 'object')
      return { refused: throttledWhy(verdict), status: 429, headers: { 'retry-after': String(verdict.retryAfterSeconds) } };
    // The challenge makes a browser send the credentials it keeps for the realm: it sends them unasked only below the
    // path that asked for them, so a page opened directly (/campaigns/new) would otherwise never get its calls through.
    if (verdict !== 'open')
      return {
        refused: 'the dashboard user and password are missing or do not match',
        status: 401,
        headers: { 'www-authenticate': BASIC_AUTH_CHALLENGE },
      };
    if (crossSite(request.headers)) return { refused: 'it came from another site', status: 403 };
    const token = request.headers[CSRF_HEADER];
    if (!(await this.#csrf.verify(typeof token === 'string' ? token : undefined, this.user)))
      return { refused: "the page's CSRF token is missing, not valid or older than 12 hours: reload the page", status: 403 };
    return { user: this.user };
  }

  /**
   * onRequest of bull-board's routes: a POST, PUT or DELETE from another site is refused (bull-board's own page sends them from this one).
   */
  readonly refuseUnsafeCrossSite = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.method === 'GET' || request.method === 'HEAD' || !crossSite(request.headers)) return;
    this.#noteRefusal(request, 'it came from another site', 403);
    await reply.code(403).send({ error: 'cross-site request refused' });
  };

  /**
   * The request's basic-auth login through the throttle: 'open' when no password is set. Without a readable
   * `user:password` there is nothing to guess with (a browser's first request, before the challenge): 'none', not counted.
   */
  async #login(request: FastifyRequest): Promise<LoginVerdict | 'none'> {
    if (this.#credentials === undefined) return 'open';
    const login = basicLoginOf(request.headers.authorization);
    const right = basicLoginMatches(login, this.#credentials);
    if (login === undefined) return 'none';
    return this.#throttle.login(request.ip, login.user, right);
  }

  /** One log line per interval, with how many refusals were held back since the last. */
  #noteRefusal(request: FastifyRequest, why: string, status: number): void {
    const now = Date.now();
    if (now - this.#lastRefusalLog < REFUSAL_LOG_INTERVAL_MS) {
      this.#refusals++;
      return;
    }
    this.#logger.warn(
      { ip: request.ip, method: request.method, url: request.url.split('?')[0], why, status, suppressed: this.#refusals },
      'dashboard request refused',
    );
    this.#lastRefusalLog = now;
    this.#refusals = 0;
  }
}

function throttledWhy(verdict: Exclude<LoginVerdict, string>): string {
  const whose = verdict.throttled === 'address' ? 'from this address' : 'for this user';
  return `too many wrong dashboard passwords ${whose}: every login is refused, the right one too, for ${verdict.retryAfterSeconds} s more`;
}
