import type { Redis } from 'ioredis';
import { silentLogger } from '../../src/logging/logger.js';
import type { ApiScope } from '../../src/http/api-tokens.js';
import { API_ROUTES } from '../../src/api/api-routes.js';
import { openApiDocument } from '../../src/api/openapi.js';
import { RedisApiTokens } from '../../src/redis/access/redis-api-tokens.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { AnswerChecker, type RecordedAnswer } from './api-answers.js';
import { tempDir } from './csv-files.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from './pipeline.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from './redis.js';

/** Settings for creating campaigns through the API: the sample templates, one number, and no worker's pace to plan with. */
export const CAMPAIGN_API_ENV: Readonly<Record<string, string>> = {
  TEMPLATES_FILE: SAMPLE_TEMPLATES,
  WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
  SEND_RATE: '0',
};

/**
 * `campaign serve` on a port of its own under a fresh QUEUE_PREFIX, with API tokens of each
 * scope, for tests of the HTTP API over real HTTP. `env` adds settings (a template file, the
 * sandbox's URL, limits).
 */
export class ApiTestService {
  readonly prefix: string;
  readonly redis: Redis;
  reportsDir = '';
  #cleanup: (() => Promise<void>) | undefined;
  service: RunningService | undefined;
  readonly tokens: Partial<Record<ApiScope, string>> = {};
  readonly store: RedisApiTokens;
  /** Every answer of call(), for checkAnswers(). */
  readonly answers: RecordedAnswer[] = [];

  constructor(name: string) {
    this.prefix = freshPrefix(name);
    this.redis = testRedis();
    this.store = new RedisApiTokens(this.redis, this.prefix);
  }

  /** The settings `serve` starts with (before `env`'s). */
  baseEnv(): Record<string, string> {
    // REPORTS_DIR: the temporary directory start() made.
    return {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: this.prefix,
      LOG_LEVEL: 'silent',
      WHATSAPP_APP_SECRET: 'api-test-secret',
      WEBHOOK_VERIFY_TOKEN: 'api-test-verify',
      REPORTS_DIR: this.reportsDir,
    };
  }

  async start(env: Record<string, string> = {}): Promise<this> {
    const reports = await tempDir();
    this.reportsDir = reports.dir;
    this.#cleanup = reports.cleanup;
    for (const scope of ['read', 'send', 'admin'] as const) this.tokens[scope] = (await this.store.create(scope, scope)).token.reveal();
    this.service = await startService({ port: 0, host: '127.0.0.1' }, { ...this.baseEnv(), ...env }, silentLogger());
    return this;
  }

  get url(): string {
    if (this.service === undefined) throw new Error('start() first');
    return `${this.service.url}/api/v1`;
  }

  /** A request to the API with the token of `scope` (none: no Authorization header). */
  async call(path: string, init: RequestInit & { scope?: ApiScope | 'none' } = {}): Promise<Response> {
    const { scope = 'admin', headers, ...rest } = init;
    const auth: Record<string, string> = scope === 'none' ? {} : { authorization: `Bearer ${this.tokens[scope]}` };
    const answer = await fetch(`${this.url}${path}`, { ...rest, headers: { ...auth, ...(headers as Record<string, string> | undefined) } });
    this.answers.push(await recorded(rest.method ?? 'GET', path, answer));
    return answer;
  }

  /** What the OpenAPI document says is wrong with the answers of call() so far (none: `[]`). */
  checkAnswers(): string[] {
    return checkRecorded(this.answers);
  }

  /** Closes it and answers checkAnswers(), for an afterEach that then expects `[]`. */
  async closeChecked(): Promise<string[]> {
    const violations = this.checkAnswers();
    await this.close();
    return violations;
  }

  async close(): Promise<void> {
    await this.service?.close();
    await removePrefix(this.redis, this.prefix);
    this.redis.disconnect();
    await this.#cleanup?.();
  }
}

/**
 * An answer as checkAnswers() sees it: a JSON body is read from a clone (the test still reads
 * the answer); other bodies are left unread (a stream may not end).
 */
export async function recorded(method: string, path: string, answer: Response): Promise<RecordedAnswer> {
  const contentType = answer.headers.get('content-type');
  const base = { method, path, status: answer.status, contentType, body: undefined };
  if (!/^application\/(?:[\w.-]+\+)?json\b/i.test(contentType ?? '')) return base;
  const text = await answer.clone().text();
  try {
    return { ...base, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  } catch {
    return base;
  }
}

/** What is wrong with recorded answers, against the API's OpenAPI document (one line per violation). */
export function checkRecorded(answers: readonly RecordedAnswer[]): string[] {
  const checker = new AnswerChecker(openApiDocument(API_ROUTES, { version: 'test' }));
  return answers.flatMap((a) => checker.check(a.method, a.path, a.status, a.contentType, a.body));
}
