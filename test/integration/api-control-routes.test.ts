import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cancelCampaignRoute,
  pauseCampaignRoute,
  rescheduleCampaignRoute,
  resumeCampaignRoute,
  retryCampaignRoute,
} from '../../src/api/routes/campaign-control-routes.js';
import { retargetCampaignRoute } from '../../src/api/routes/campaign-retarget-route.js';
import { getCampaignRoute } from '../../src/api/routes/campaign-status-route.js';
import type { AppContext } from '../../src/app/app-context.js';
import { documented, refused } from '../support/api-documented.js';
import { answeredCampaign } from '../support/api-campaigns.js';
import { ApiTestService } from '../support/api-service.js';
import { testContext } from '../support/app-context.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';

const HOUR = 3_600_000;

/** An ISO instant with an offset, `ms` from now (+01:00, as an operator in Berlin would write it). */
function inBerlin(ms: number): string {
  const at = new Date(Date.now() + ms + HOUR);
  return `${at.toISOString().slice(0, 19)}+01:00`;
}

/** POST /campaigns/{id}/pause|resume|cancel|reschedule|retry|retarget over real HTTP: what the CLI does, and its refusals. */
describe('HTTP API: controlling campaigns', () => {
  const api = new ApiTestService('api-controls');
  let context: AppContext;

  beforeAll(async () => {
    await api.start({ TEMPLATES_FILE: SAMPLE_TEMPLATES });
    context = testContext(api.prefix, { REPORTS_DIR: api.reportsDir });
  });
  afterAll(async () => {
    await context.redis.quit();
    await api.close();
  });

  const post = (path: string, body?: unknown, scope: 'read' | 'send' | 'admin' = 'send') =>
    api.call(path, {
      scope,
      method: 'POST',
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });

  it('pauses and resumes, saying when nothing changed; a read token is refused with 403', async () => {
    await answeredCampaign(context.ledger, 'c-pause', ['queued', 'queued']);
    await refused(await post('/campaigns/c-pause/pause', undefined, 'read'), 403, 'API_SCOPE_REFUSED');
    expect((await context.ledger.status('c-pause'))?.state).not.toBe('paused');

    const paused = await documented(pauseCampaignRoute, await post('/campaigns/c-pause/pause', { reason: 'checking the list' }), 200);
    expect(paused).toMatchObject({ id: 'c-pause', alreadyPaused: false, campaign: { state: 'paused', pausedReason: 'checking the list' } });
    const again = await documented(pauseCampaignRoute, await post('/campaigns/c-pause/pause'), 200);
    expect(again).toMatchObject({ alreadyPaused: true, campaign: { pausedReason: 'checking the list' } });

    const resumed = await documented(resumeCampaignRoute, await post('/campaigns/c-pause/resume'), 200);
    expect(resumed).toMatchObject({ id: 'c-pause', wasPaused: true, campaign: { pausedReason: null } });
    expect(await documented(resumeCampaignRoute, await post('/campaigns/c-pause/resume'), 200)).toMatchObject({ wasPaused: false });
    await refused(await post('/campaigns/c-pause/pause', { reason: 7 }), 400, 'API_REQUEST_INVALID');
    await refused(await post('/campaigns/nope/pause'), 404, 'CAMPAIGN_NOT_FOUND');
  });

  it('cancels once; resume and pause of a cancelled campaign are 409 CAMPAIGN_STATE_CONFLICT', async () => {
    await answeredCampaign(context.ledger, 'c-cancel', ['queued', 'queued', 'queued']);
    const cancelled = await documented(cancelCampaignRoute, await post('/campaigns/c-cancel/cancel'), 200);
    expect(cancelled).toMatchObject({ id: 'c-cancel', alreadyCancelled: false, campaign: { state: 'cancelled' } });
    const again = await documented(cancelCampaignRoute, await post('/campaigns/c-cancel/cancel'), 200);
    expect(again).toMatchObject({ alreadyCancelled: true, cancelled: 0 });
    expect((again as { finishedAt: string | null }).finishedAt).not.toBeNull();

    const conflict = await refused(await post('/campaigns/c-cancel/resume'), 409, 'CAMPAIGN_STATE_CONFLICT');
    expect(conflict.detail).toContain('cancelled');
    await refused(await post('/campaigns/c-cancel/pause'), 409, 'CAMPAIGN_STATE_CONFLICT');
    await refused(await post('/campaigns/c-cancel/retry'), 409, 'CAMPAIGN_STATE_CONFLICT');
    await refused(await post('/campaigns/nope/cancel'), 404, 'CAMPAIGN_NOT_FOUND');
  });

  it('reschedules a campaign not started yet, checking `at` as `campaign reschedule --at` does', async () => {
    await answeredCampaign(context.ledger, 'c-later', ['queued'], { startsAt: Date.now() + 2 * HOUR });
    const at = inBerlin(3 * HOUR);
    const moved = await documented(rescheduleCampaignRoute, await post('/campaigns/c-later/reschedule', { at }), 200);
    expect(moved).toMatchObject({
      id: 'c-later',
      startsAt: new Date(at).toISOString(),
      campaign: { startsAt: new Date(at).toISOString() },
    });

    await refused(await post('/campaigns/c-later/reschedule', { at: '2026-12-01 09:00' }), 422, 'OPTION_INVALID');
    await refused(await post('/campaigns/c-later/reschedule', { at: inBerlin(-3 * HOUR) }), 422, 'TIME_IN_PAST');
    await refused(await post('/campaigns/c-later/reschedule', {}), 400, 'API_REQUEST_INVALID');
    await answeredCampaign(context.ledger, 'c-started', ['sent', 'queued']);
    await refused(await post('/campaigns/c-started/reschedule', { at }), 409, 'CAMPAIGN_STATE_CONFLICT');
  });

  it('retries the failed rows (or those with the codes given) and says how many', async () => {
    await answeredCampaign(context.ledger, 'c-retry', ['failed', 'sent', 'failed']);
    const badCode = await refused(await post('/campaigns/c-retry/retry', { codes: ['not-a-code'] }), 422, 'OPTION_INVALID');
    expect(badCode.detail).toMatch(/^codes "NOT-A-CODE" is not an error code/);
    const none = await documented(retryCampaignRoute, await post('/campaigns/c-retry/retry', { codes: ['131000'] }), 200);
    expect(none).toMatchObject({ requeued: 0, held: 0, heldUntil: null });
    const retried = await documented(retryCampaignRoute, await post('/campaigns/c-retry/retry', {}), 200);
    expect(retried).toMatchObject({ id: 'c-retry', requeued: 2, paused: false, campaign: { failed: 0, queued: 2 } });
    const unknownOnly = await documented(retryCampaignRoute, await post('/campaigns/c-retry/retry', { unknown: true }), 200);
    expect(unknownOnly).toMatchObject({ requeued: 0 });
  });

  it('retargets the failed rows of a finished campaign: 201, the new campaign as `send --json`, and Location', async () => {
    await answeredCampaign(context.ledger, 'c-source', ['failed', 'sent', 'failed'], { name: 'Orders' });
    const body = { status: 'failed', template: 'order_update', language: 'en_US', params: ['phone', 'phone'] };
    const answer = await post('/campaigns/c-source/retarget', body);
    const created = (await documented(retargetCampaignRoute, answer, 201)) as { id: string };
    expect(created).toMatchObject({ name: 'Orders (failed)', dryRun: false, rows: 2, queued: 2, rejected: 0, skipped: 0 });
    expect(answer.headers.get('location')).toBe(`/api/v1/campaigns/${created.id}`);
    const view = await documented(getCampaignRoute, await api.call(`/campaigns/${created.id}`, { scope: 'read' }), 200);
    expect(view).toMatchObject({ sourceCampaign: 'c-source', template: 'order_update', total: 2 });

    const none = await refused(
      await post('/campaigns/c-source/retarget', { ...body, status: 'delivered-not-read' }),
      422,
      'RETARGET_NO_ROWS',
    );
    expect(none.detail).toContain('no campaign was created');
    const named = { status: 'failed', template: 'appointment_reminder_named', language: 'en_US', params: ['phone'] };
    const mapping = await refused(await post('/campaigns/c-source/retarget', named), 422, 'TEMPLATE_MAPPING_INVALID');
    expect(mapping.detail).toContain('params');
    await refused(await post('/campaigns/c-source/retarget', { ...body, after: 'soon' }), 422, 'OPTION_INVALID');
    await refused(await post('/campaigns/c-source/retarget', { ...body, status: 'read' }), 400, 'API_REQUEST_INVALID');
    await refused(await post('/campaigns/c-source/retarget', body, 'read'), 403, 'API_SCOPE_REFUSED');

    await answeredCampaign(context.ledger, 'c-running', ['failed', 'queued']);
    await refused(await post('/campaigns/c-running/retarget', body), 409, 'CAMPAIGN_NOT_FINISHED');
    await refused(await post('/campaigns/nope/retarget', body), 404, 'CAMPAIGN_NOT_FOUND');
  });

  it('answered every call as its OpenAPI document says', () => {
    expect(api.answers.length).toBeGreaterThan(3);
    expect(api.checkAnswers()).toStrictEqual([]);
  });
});
