import { Agent, request, type Dispatcher } from 'undici';
import { userAgent } from '../cloud-api/user-agent.js';
import { refusedAddressReason } from './address-policy.js';
import { guardedLookup, systemResolver, type AddressPolicy, type Resolver } from './guarded-lookup.js';
import { ipBytes } from './ip-address.js';
import { fetchFailure, refusedHost, type FetchStep } from './fetch-failure.js';
import { describeUrl, mediaProblem, type MediaProblem } from './media-problem.js';
import type { MediaReadResult } from './media-read.js';

export { readLocalMediaFile } from './local-media-file.js';
export type { FetchedMedia, MediaReadResult } from './media-read.js';

export const DEFAULT_MEDIA_FETCH_TIMEOUT_MS = 15_000;
export const DEFAULT_MEDIA_MAX_REDIRECTS = 5;

export interface MediaFetcherOptions {
  /** MEDIA_ALLOW_PRIVATE_HOSTS: connect to any address (a test setup, a media server on the LAN). */
  allowPrivateHosts: boolean;
  /** For the whole download: every redirect, the connection, and the body (default 15 s). */
  timeoutMs?: number;
  /** Redirects followed, each checked as the first URL is (default 5). */
  maxRedirects?: number;
  /** Tests: the resolver, instead of the system's. */
  resolve?: Resolver;
  /** Tests: which addresses are refused, instead of address-policy.ts (ignored when allowPrivateHosts). */
  addressPolicy?: AddressPolicy;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Downloads media from URLs that API callers chose, as a server must: http(s) only, at most
 * `maxBytes` read (more is refused as soon as it arrives, or at once when Content-Length says
 * so), one deadline for everything, and never an address that is not public (address-policy.ts):
 * a name is judged at connect time on the very addresses the socket uses (guarded-lookup.ts),
 * an IP literal before the request, and each redirect is followed by hand and judged again.
 * No credential is ever sent. One fetcher serves a campaign; close() ends its connections.
 */
export class MediaFetcher {
  readonly #agent: Agent;
  readonly #policy: AddressPolicy | undefined;
  readonly #timeoutMs: number;
  readonly #maxRedirects: number;
  #fetches = 0;

  constructor(options: MediaFetcherOptions) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_MEDIA_FETCH_TIMEOUT_MS;
    this.#maxRedirects = options.maxRedirects ?? DEFAULT_MEDIA_MAX_REDIRECTS;
    this.#policy = options.allowPrivateHosts ? undefined : (options.addressPolicy ?? refusedAddressReason);
    const lookup = this.#policy === undefined ? {} : { lookup: guardedLookup(options.resolve ?? systemResolver, this.#policy) };
    this.#agent = new Agent({
      connections: 8,
      keepAliveTimeout: 4_000,
      connect: { timeout: Math.min(this.#timeoutMs, 10_000), ...lookup },
    });
  }

  /** Downloads begun (each URL once, redirects not counted again). */
  get fetches(): number {
    return this.#fetches;
  }

  async fetch(url: string, maxBytes: number): Promise<MediaReadResult> {
    this.#fetches++;
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    let current = parseUrl(url);
    if (!(current instanceof URL)) return current;
    for (let redirects = 0; ; redirects++) {
      const step: FetchStep = { url: current, deadline, timeoutMs: this.#timeoutMs };
      const refused = this.#refusedLiteral(current);
      if (refused !== undefined) return refused;
      let response: Dispatcher.ResponseData;
      try {
        response = await request(current, {
          method: 'GET',
          dispatcher: this.#agent,
          signal: deadline,
          headers: { accept: '*/*', 'user-agent': userAgent() },
        });
      } catch (error) {
        return fetchFailure(error, step);
      }
      if (!REDIRECTS.has(response.statusCode)) return this.#read(response, step, maxBytes);
      await discard(response);
      const next = this.#redirectTarget(response, current, redirects);
      if (!(next instanceof URL)) return next;
      current = next;
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  /** A literal address connects without a lookup, so it is judged here; a name is judged when its socket connects. */
  #refusedLiteral(url: URL): MediaProblem | undefined {
    if (this.#policy === undefined || ipBytes(url.hostname) === undefined) return undefined;
    const reason = this.#policy(url.hostname.replace(/^\[|\]$/g, ''));
    return reason === undefined ? undefined : refusedHost(url, reason);
  }

  #redirectTarget(response: Dispatcher.ResponseData, from: URL, redirects: number): URL | MediaProblem {
    const status = response.statusCode;
    if (redirects >= this.#maxRedirects) {
      return mediaProblem(
        'MEDIA_UNREACHABLE',
        `${describeUrl(from)} redirected more than ${this.#maxRedirects} times: link the file's final URL`,
      );
    }
    const location = headerValue(response.headers['location']);
    if (location === undefined) {
      return mediaProblem(
        'MEDIA_UNREACHABLE',
        `${describeUrl(from)} answered HTTP ${status} without a Location: link the file's final URL`,
      );
    }
    let next: URL;
    try {
      next = new URL(location, from);
    } catch {
      return mediaProblem('MEDIA_UNREACHABLE', `${describeUrl(from)} redirected (HTTP ${status}) to a Location that is not a URL`);
    }
    return urlProblem(next, `the redirect from ${describeUrl(from)}`) ?? next;
  }

  async #read(response: Dispatcher.ResponseData, step: FetchStep, maxBytes: number): Promise<MediaReadResult> {
    const { statusCode: status, headers, body } = response;
    const from = describeUrl(step.url);
    if (status < 200 || status > 299) {
      await discard(response);
      return mediaProblem('MEDIA_UNREACHABLE', `${from} answered HTTP ${status}: check that the link opens the file without logging in`);
    }
    const length = Number(headerValue(headers['content-length']));
    if (Number.isFinite(length) && length > maxBytes) {
      abandon(body);
      return tooLarge(from, `${length} bytes (Content-Length)`, maxBytes);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of body) {
        const part = chunk as Buffer;
        total += part.length;
        // Stop reading at once: a server may send without end.
        if (total > maxBytes) {
          abandon(body);
          return tooLarge(from, `more than ${maxBytes} bytes`, maxBytes);
        }
        chunks.push(part);
      }
    } catch (error) {
      return fetchFailure(error, step);
    }
    return { ok: true, bytes: Buffer.concat(chunks, total), declaredType: headerValue(headers['content-type']), from };
  }
}

function parseUrl(text: string): URL | MediaProblem {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return mediaProblem('MEDIA_UNREACHABLE', `"${text.slice(0, 80)}" is not a URL: give an absolute https:// link to the file`);
  }
  return urlProblem(url, 'the media link') ?? url;
}

/** Only http(s), and no credentials: media is fetched anonymously, whether the link or a redirect names the URL. */
function urlProblem(url: URL, what: string): MediaProblem | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return mediaProblem('MEDIA_UNREACHABLE', `${what} is a ${url.protocol} URL; only http:// and https:// links are fetched`);
  }
  if (url.username === '' && url.password === '') return undefined;
  return mediaProblem(
    'MEDIA_UNREACHABLE',
    `${what} (${describeUrl(url)}) carries a user name or password: media is fetched without credentials, link a public file`,
  );
}

function tooLarge(from: string, size: string, maxBytes: number): MediaProblem {
  return mediaProblem('MEDIA_TOO_LARGE', `${from} is ${size}; at most ${maxBytes} bytes are taken for this header: link a smaller file`);
}

/** Drops a small body that is not the file (a redirect's, an error page): read a little and let go (undici's dump). */
async function discard(response: Dispatcher.ResponseData): Promise<void> {
  await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
}

/**
 * Stops a body too large to read on, closing its connection. A body destroyed before its end
 * emits undici's "Request aborted" error: nobody else listens to it by then, so it is heard here.
 */
function abandon(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
