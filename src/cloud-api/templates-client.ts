import { Agent, type Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Secret } from '../config/secret.js';
import type { TemplateSource } from '../templates/template-source.js';
import { messageTemplateSchema, templateListSchema, type MessageTemplate } from '../templates/template-schema.js';
import { CloudApiBadResponseError, type CloudApiError } from './cloud-api-errors.js';
import { graphError, graphGet } from './graph-answers.js';
import { safeJson } from './safe-json.js';

export const DEFAULT_TEMPLATE_PAGE_SIZE = 100;
/** At 100 a page this is 100k templates, far above Meta's per-WABA cap; it only stops a server that pages forever. */
export const DEFAULT_MAX_TEMPLATE_PAGES = 1000;

/** Asked for explicitly, so a change in Meta's default field set cannot drop one the schema needs. */
const FIELDS = 'id,name,language,status,category,parameter_format,components';

export interface TemplatesClientOptions {
  baseUrl: string;
  apiVersion: string;
  businessAccountId: string;
  accessToken: Secret;
  timeoutMs: number;
  /** `limit` per page (default 100). */
  pageSize?: number;
  /** Pages before giving up with CLOUD_API_BAD_RESPONSE (default 1000). */
  maxPages?: number;
  /** For tests (undici MockAgent); by default a small keep-alive Agent owned by this client. */
  dispatcher?: Dispatcher;
  /** Where skipped templates are reported; default: not reported. */
  logger?: Logger;
}

/**
 * An envelope whose items are checked one by one: a template Meta returns with a component
 * this version does not model (a carousel, a limited-time offer) is skipped with a warning
 * instead of failing the whole list. An item without name, language and status is not a
 * template at all, and fails the page.
 */
const pageSchema = z.object({ data: z.array(z.unknown()), paging: templateListSchema.shape.paging });
const templateIdentity = z.object({ name: z.string().min(1), language: z.string().min(1), status: z.string() });

/**
 * Reads every template of a WhatsApp Business Account: `GET /{version}/{waba-id}/message_templates`
 * page by page (reference §5.1). The token travels only in the Authorization header.
 */
export class CloudApiTemplateSource implements TemplateSource {
  readonly #options: TemplatesClientOptions;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;

  constructor(options: TemplatesClientOptions) {
    const pageSize = options.pageSize ?? DEFAULT_TEMPLATE_PAGE_SIZE;
    const maxPages = options.maxPages ?? DEFAULT_MAX_TEMPLATE_PAGES;
    if (!Number.isInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a positive integer, got ${pageSize}`);
    if (!Number.isInteger(maxPages) || maxPages < 1) throw new RangeError(`maxPages must be a positive integer, got ${maxPages}`);
    this.#options = { ...options, pageSize, maxPages };
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ??
      new Agent({ connections: 2, keepAliveTimeout: 10_000, connect: { timeout: Math.min(options.timeoutMs, 10_000) } });
  }

  describe(): string {
    const { baseUrl, apiVersion, businessAccountId } = this.#options;
    return `Cloud API ${baseUrl}/${apiVersion} WABA ${businessAccountId}`;
  }

  /**
   * Every page, in order. The next page is asked for with the `after` cursor on our own URL
   * rather than by fetching `paging.next` as given: Graph's `next` can carry `access_token`
   * in its query and is an absolute URL, so following it could put the token in a URL or
   * send it to another host. `paging.next` absent means the last page.
   */
  async fetchAll(): Promise<MessageTemplate[]> {
    const maxPages = this.#options.maxPages ?? DEFAULT_MAX_TEMPLATE_PAGES;
    const templates: MessageTemplate[] = [];
    const cursors = new Set<string>();
    let after: string | undefined;
    for (let page = 1; page <= maxPages; page++) {
      const list = this.#parsePage(page, await this.#get(page, after));
      templates.push(...list.templates);
      const next = list.paging?.next;
      if (next === undefined) return templates;
      const cursor = list.paging?.cursors?.after ?? afterOf(next);
      if (cursor === undefined) throw new CloudApiBadResponseError(200, `templates page ${page} has paging.next but no after cursor`);
      if (cursors.has(cursor)) throw new CloudApiBadResponseError(200, `templates page ${page} repeats an earlier after cursor`);
      cursors.add(cursor);
      after = cursor;
    }
    throw new CloudApiBadResponseError(200, `templates list still had a next page after ${maxPages} pages; stopped`);
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  async #get(page: number, after: string | undefined): Promise<{ status: number; text: string }> {
    const { baseUrl, apiVersion, businessAccountId, accessToken, timeoutMs, pageSize } = this.#options;
    const url = new URL(`${baseUrl}/${apiVersion}/${encodeURIComponent(businessAccountId)}/message_templates`);
    url.searchParams.set('fields', FIELDS);
    url.searchParams.set('limit', String(pageSize));
    if (after !== undefined) url.searchParams.set('after', after);
    const { status, text } = await graphGet(url, {
      accessToken,
      timeoutMs,
      dispatcher: this.#dispatcher,
      what: `listing templates, page ${page}`,
    });
    if (status < 200 || status >= 300) throw this.#graphError(status, text);
    return { status, text };
  }

  #parsePage(page: number, { status, text }: { status: number; text: string }) {
    const envelope = pageSchema.safeParse(safeJson(text));
    if (!envelope.success) throw badPage(status, page, envelope.error.issues[0]);
    const templates: MessageTemplate[] = [];
    envelope.data.data.forEach((item, index) => {
      const identity = templateIdentity.safeParse(item);
      if (!identity.success) throw badPage(status, page, identity.error.issues[0], ['data', index]);
      const parsed = messageTemplateSchema.safeParse(item);
      if (parsed.success) {
        templates.push(parsed.data);
        return;
      }
      this.#options.logger?.warn(
        { template: identity.data.name, language: identity.data.language, problem: describeIssue(parsed.error.issues[0]) },
        'template skipped: shape not supported',
      );
    });
    return { templates, paging: envelope.data.paging };
  }

  #graphError(status: number, text: string): CloudApiError {
    const error = graphError(status, text);
    const what = error.metaCode === undefined ? `HTTP ${status}` : `code ${error.metaCode}`;
    error.message =
      `Cloud API refused the templates list of WABA ${this.#options.businessAccountId} ` + `(${what}): ${error.details ?? 'no error body'}`;
    return error;
  }
}

function badPage(status: number, page: number, issue: z.core.$ZodIssue | undefined, at: PropertyKey[] = []): CloudApiBadResponseError {
  return new CloudApiBadResponseError(status, `templates page ${page}: ${describeIssue(issue, at)}`);
}

function describeIssue(issue: z.core.$ZodIssue | undefined, at: PropertyKey[] = []): string {
  const path = [...at, ...(issue?.path ?? [])].map(String).join('.');
  return `${path === '' ? '(top level)' : path}: ${issue?.message ?? 'invalid'}`;
}

function afterOf(next: string): string | undefined {
  try {
    return new URL(next).searchParams.get('after') ?? undefined;
  } catch {
    return undefined;
  }
}
