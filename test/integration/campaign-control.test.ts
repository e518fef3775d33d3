import { beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { runControl, type ControlContext } from '../../src/app/campaign-control.js';
import type { CampaignActor, CampaignHistory, HistoryEntry } from '../../src/campaigns/history/campaign-history.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisCampaignHistory } from '../../src/redis/history/redis-campaign-history.js';
import type { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { TestClock } from '../support/test-clock.js';
import { ledgersPerTest } from '../support/test-ledger.js';
import { UNIT_NUMBER } from '../support/unit-campaigns.js';

/**
 * runControl (src/app/campaign-control.ts), what the CLI, the API and the pages all call: the
 * control on the ledger (a real Redis, its clock stopped), and the campaign's history entry
 * written once it changed the campaign, with its actor, and only then.
 */

const ID = 'ctl-1';
const HOUR = 3_600_000;
const AT = Date.parse('2026-12-01T08:00:00Z');
const ALICE: CampaignActor = { kind: 'dashboard', name: 'alice' };
const job = (row: number): SendJob => ({ campaignId: ID, row });

describe('runControl (ledger and history on a real Redis)', () => {
  const openLedger = ledgersPerTest('app-control');
  let ledger: RedisLedger;
  let history: RedisCampaignHistory;
  let warn: MockInstance;
  let context: ControlContext;

  beforeEach(() => {
    const opened = openLedger({}, TestClock.stopped(AT));
    ledger = opened.ledger;
    history = new RedisCampaignHistory(opened.redis, opened.prefix);
    const logger = silentLogger();
    warn = vi.spyOn(logger, 'warn');
    context = { ledger, history, logger, now: () => AT + 5 };
  });

  /** A campaign of `rows` queued rows, ingest finished and all fed; `failed` of them then failed with 131000. */
  async function campaign(rows: number, failed = 0): Promise<void> {
    await ledger.createCampaign(ledgerTestDefinition(ID));
    await ledger.recordIngested(
      ID,
      UNIT_NUMBER,
      Array.from({ length: rows }, (_, i) => queuedRow(i + 1)),
    );
    await ledger.finishIngest(ID);
    await ledger.feed(UNIT_NUMBER, { windowSize: rows, minBatch: 1, refreshAfterMs: HOUR, refreshMost: 0 });
    for (let row = 1; row <= failed; row++) {
      await ledger.claim(job(row), UNIT_NUMBER);
      await ledger.settle(job(row), { status: 'failed', errorCode: '131000', errorDetail: 'x' }, UNIT_NUMBER);
    }
  }

  const entry = (action: HistoryEntry['action'], detail?: string): HistoryEntry => ({
    at: AT + 5,
    actor: ALICE,
    action,
    ...(detail === undefined ? {} : { detail }),
  });

  it('records each control that changed the campaign, with its actor and detail, and none that changed nothing', async () => {
    await campaign(3);
    expect(await runControl(context, ALICE, 'pause', ID, {})).toStrictEqual({ alreadyPaused: false });
    expect(await runControl(context, ALICE, 'pause', ID, { reason: 'again' })).toStrictEqual({ alreadyPaused: true });
    expect(await runControl(context, ALICE, 'resume', ID, {})).toStrictEqual({ wasPaused: true });
    expect(await runControl(context, ALICE, 'resume', ID, {})).toStrictEqual({ wasPaused: false });
    // Every row was fed: none is in the backlog, and the detail says so.
    expect(await runControl(context, ALICE, 'cancel', ID, {})).toMatchObject({ cancelled: 0, alreadyCancelled: false });
    expect(await runControl(context, ALICE, 'cancel', ID, {})).toMatchObject({ alreadyCancelled: true });

    expect(await history.list(ID)).toStrictEqual([
      entry('cancel', '0 rows not yet fed cancelled'),
      entry('resume'),
      entry('pause', 'paused by the operator'),
    ]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('records a retry only when it put rows back, and a reschedule with its new start', async () => {
    await campaign(4, 2);
    const selection = { codes: [], failed: true, unknown: false };
    expect(await runControl(context, ALICE, 'retry', ID, { selection })).toMatchObject({ requeued: 2, paused: false });
    expect(await runControl(context, ALICE, 'retry', ID, { selection })).toMatchObject({ requeued: 0 });
    expect(await history.list(ID)).toStrictEqual([entry('retry', '2 rows put back in the queue')]);

    const later = 'resched';
    const definition = ledgerTestDefinition(later);
    definition.startsAt = AT + 2 * HOUR;
    await ledger.createCampaign(definition);
    await ledger.recordIngested(later, UNIT_NUMBER, [queuedRow(1)]);
    await ledger.finishIngest(later);
    const startsAt = AT + 3 * HOUR;
    expect(await runControl(context, ALICE, 'reschedule', later, { startsAt })).toStrictEqual({ startsAt });
    expect(await history.list(later)).toStrictEqual([{ ...entry('reschedule', `starts at ${new Date(startsAt).toISOString()}`) }]);
  });

  it('records nothing when the control is refused, and the refusal is the caller’s', async () => {
    await expect(runControl(context, ALICE, 'pause', 'nope', {})).rejects.toMatchObject({ code: 'CAMPAIGN_NOT_FOUND' });
    await campaign(1);
    await runControl(context, ALICE, 'cancel', ID, {});
    await expect(runControl(context, ALICE, 'resume', ID, {})).rejects.toMatchObject({ code: 'CAMPAIGN_STATE_CONFLICT' });
    expect(await history.list('nope')).toStrictEqual([]);
    expect((await history.list(ID)).map((e) => e.action)).toStrictEqual(['cancel']);
  });

  it('a history that cannot be written is a warning: the control worked and says what it did', async () => {
    await campaign(2);
    const broken: Pick<CampaignHistory, 'record'> = { record: () => Promise.reject(new Error('history down')) };
    const answer = await runControl({ ...context, history: broken }, ALICE, 'pause', ID, { reason: 'price list' });
    expect(answer).toStrictEqual({ alreadyPaused: false });
    expect(await ledger.status(ID)).toMatchObject({ state: 'paused', pausedReason: 'price list' });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ campaignId: ID, action: 'pause' }),
      expect.stringMatching(/history not recorded/),
    );
  });
});
