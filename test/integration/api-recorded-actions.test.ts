import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiCaller } from '../../src/api/api-principal.js';
import { registerApiRoutes } from '../../src/api/api-routes.js';
import { registerApi } from '../../src/api/api-server.js';
import type { ApiAction } from '../../src/api/api-services.js';
import type { AppContext } from '../../src/app/app-context.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisApiTokens } from '../../src/redis/access/redis-api-tokens.js';
import { RedisCampaignHistory } from '../../src/redis/history/redis-campaign-history.js';
import { answeredCampaign } from '../support/api-campaigns.js';
import { testContext } from '../support/app-context.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix } from '../support/redis.js';
import { tempDir } from '../support/csv-files.js';

const HOUR = 3_600_000;

/**
 * Who acted on a campaign, as the campaign's history keeps it: the controls through runControl
 * (src/app/campaign-control.ts), a retarget through services.recordAction; once each change
 * worked, never for a refusal or for a request that changed nothing. The API runs in-process
 * here, so the calls to services.recordAction can be seen.
 */
describe('HTTP API: the actions recorded for a campaign history', () => {
  const prefix = freshPrefix('api-recorded');
  let context: AppContext;
  let app: FastifyInstance;
  let cleanup: () => Promise<void>;
  let token = '';
  const recorded: { id: string; caller: string; action: ApiAction; detail: string | undefined }[] = [];

  beforeAll(async () => {
    const reports = await tempDir();
    cleanup = reports.cleanup;
    context = testContext(prefix, { TEMPLATES_FILE: SAMPLE_TEMPLATES, REPORTS_DIR: reports.dir });
    const tokens = new RedisApiTokens(context.redis, prefix);
    token = (await tokens.create('ops-bot', 'send')).token.reveal();
    const services = {
      context,
      now: Date.now,
      recordAction: async (id: string, caller: ApiCaller, action: ApiAction, detail?: string) => {
        recorded.push({ id, caller: `${caller.kind}:${caller.name}`, action, detail });
        return Promise.resolve();
      },
    };
    app = Fastify();
    await registerApi(app, {
      redis: context.redis,
      prefix,
      tokens,
      sessions: undefined,
      limits: { maxUploadBytes: 1024, requestsPerMinute: 1000 },
      logger: silentLogger(),
      routes: (scope) => registerApiRoutes(scope, services),
    });
  });
  afterAll(async () => {
    await app.close();
    await context.close();
    await cleanup();
  });

  const post = async (path: string, body: unknown = {}) =>
    (await app.inject({ method: 'POST', url: `/api/v1${path}`, headers: { authorization: `Bearer ${token}` }, payload: body as object }))
      .statusCode;

  it('records each control that changed the campaign, with the caller and a detail', async () => {
    await answeredCampaign(context.ledger, 'c-acted', ['queued', 'queued'], { startsAt: Date.now() + HOUR });
    const at = new Date(Date.now() + 2 * HOUR).toISOString();
    expect(await post('/campaigns/c-acted/reschedule', { at })).toBe(200);
    expect(await post('/campaigns/c-acted/pause', { reason: 'wrong list' })).toBe(200);
    expect(await post('/campaigns/c-acted/pause')).toBe(200);
    expect(await post('/campaigns/c-acted/resume')).toBe(200);
    expect(await post('/campaigns/c-acted/resume')).toBe(200);
    expect(await post('/campaigns/c-acted/cancel')).toBe(200);
    expect(await post('/campaigns/c-acted/cancel')).toBe(200);
    expect(await post('/campaigns/c-acted/resume')).toBe(409);
    expect(await post('/campaigns/nope/pause')).toBe(404);
    const history = new RedisCampaignHistory(context.redis, prefix);
    const entries = (await history.list('c-acted')).reverse();
    expect(entries.map(({ action, detail }) => [action, detail])).toStrictEqual([
      ['reschedule', `starts at ${at}`],
      ['pause', 'wrong list'],
      ['resume', undefined],
      ['cancel', '2 rows not yet fed cancelled'],
    ]);
    expect(new Set(entries.map(({ actor }) => `${actor.kind}:${actor.name}`))).toStrictEqual(new Set(['token:ops-bot']));
    expect(await history.list('nope')).toStrictEqual([]);
    // Recorded once: not again through services.recordAction.
    expect(recorded).toStrictEqual([]);
  });

  it('records a retry that put rows back, and a retarget on the new campaign, from its source', async () => {
    recorded.length = 0;
    await answeredCampaign(context.ledger, 'c-failed', ['failed', 'sent']);
    expect(await post('/campaigns/c-failed/retry', { codes: ['999'] })).toBe(200);
    expect(await post('/campaigns/c-failed/retry')).toBe(200);
    await answeredCampaign(context.ledger, 'c-src', ['failed', 'sent']);
    const retarget = { status: 'failed', template: 'order_update', language: 'en_US', params: ['phone', 'phone'] };
    expect(await post('/campaigns/c-src/retarget', retarget)).toBe(201);
    expect(await post('/campaigns/c-src/retarget', { ...retarget, status: 'not-replied', after: '2d' })).toBe(422);
    const retries = await new RedisCampaignHistory(context.redis, prefix).list('c-failed');
    expect(retries.map(({ action, detail, actor }) => [action, detail, actor])).toStrictEqual([
      ['retry', '1 rows put back in the queue', { kind: 'token', name: 'ops-bot' }],
    ]);
    expect(recorded.map(({ action, detail }) => [action, detail])).toStrictEqual([
      ['retarget', 'from campaign c-src (its failed rows): 1 queued'],
      ['retarget', 'its failed rows taken into campaign ' + recorded[0]!.id],
    ]);
    const created = recorded[0]!.id;
    expect(created).not.toBe('c-src');
    expect(await context.ledger.getCampaign(created)).toMatchObject({ sourceCampaign: 'c-src' });
  });
});
