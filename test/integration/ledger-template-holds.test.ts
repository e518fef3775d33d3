import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import type { TemplateStatusUpdate } from '../../src/campaigns/ledger.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { feedAll, ledgerTestDefinition, queuedRow, LEDGER_TEST_NUMBER } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * A template's status as the ledger applies it (template-status.lua), on a real Redis: the
 * campaigns that send the template in that language take its hold (paused, `TEMPLATE_PAUSED: …`),
 * its reinstatement lifts it, and a pause of another kind over it outlives the reinstatement.
 */

const update = (event: string, name = 'order_update', language = 'en_US'): TemplateStatusUpdate => ({
  event,
  name,
  language,
  detail: event === 'PAUSED' ? 'LOW_QUALITY' : '',
});

function definitionOf(id: string, template?: { name: string; language: string }): CampaignDefinition {
  const base = ledgerTestDefinition(id);
  if (template === undefined || base.plan === undefined) return base;
  return { ...base, plan: { ...base.plan, ...template } };
}

describe('RedisLedger template holds (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('ledger-tpl');
    ledger = new RedisLedger(redis, prefix);
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  async function campaign(id: string, template?: { name: string; language: string }, options: { startsAt?: number } = {}) {
    await ledger.createCampaign({ ...definitionOf(id, template), ...options });
    await ledger.recordIngested(id, LEDGER_TEST_NUMBER, [queuedRow(1), queuedRow(2)]);
    await ledger.finishIngest(id);
  }

  const byId = (outcomes: { campaignId: string; outcome: string }[]) => Object.fromEntries(outcomes.map((o) => [o.campaignId, o.outcome]));

  it('PAUSED pauses every running or scheduled campaign of that template and language, none other; REINSTATED resumes them', async () => {
    await campaign('a');
    await campaign('b', undefined, { startsAt: Date.now() + 3_600_000 });
    await campaign('other-language', { name: 'order_update', language: 'de' });
    await campaign('other-name', { name: 'promo', language: 'en_US' });

    expect(byId(await ledger.applyTemplateStatus(update('PAUSED')))).toEqual({ a: 'paused', b: 'paused' });
    for (const id of ['a', 'b']) {
      const status = await ledger.status(id);
      expect(status?.state).toBe('paused');
      expect(status?.pausedReason).toBe('TEMPLATE_PAUSED: PAUSED order_update (en_US): LOW_QUALITY');
      expect(await ledger.isHeld(id)).toBe(true);
    }
    for (const id of ['other-language', 'other-name']) expect(await ledger.isHeld(id)).toBe(false);

    // A second pausing event changes nothing; FLAGGED is not one of ours.
    expect(byId(await ledger.applyTemplateStatus(update('DISABLED')))).toEqual({ a: 'already-held', b: 'already-held' });
    expect(byId(await ledger.applyTemplateStatus(update('FLAGGED')))).toEqual({ a: 'ignored', b: 'ignored' });
    expect((await ledger.status('a'))?.pausedReason).toMatch(/^TEMPLATE_PAUSED: PAUSED /);

    expect(byId(await ledger.applyTemplateStatus(update('REINSTATED')))).toEqual({ a: 'resumed', b: 'resumed' });
    expect(await ledger.status('a')).toMatchObject({ state: 'running', pausedReason: undefined });
    expect((await ledger.status('b'))?.state).toBe('scheduled');
    expect(byId(await ledger.applyTemplateStatus(update('APPROVED')))).toEqual({ a: 'not-held', b: 'not-held' });
  });

  it('an operator who pauses a template-paused campaign keeps it paused after the reinstatement', async () => {
    await campaign('a');
    await campaign('b');
    await ledger.applyTemplateStatus(update('PAUSED'));
    expect(await ledger.pause('a', 'paused by the operator')).toEqual({ outcome: 'paused' });
    expect(await ledger.pause('a', 'again')).toEqual({ outcome: 'already-paused' });
    expect((await ledger.status('a'))?.pausedReason).toBe('paused by the operator');

    expect(byId(await ledger.applyTemplateStatus(update('REINSTATED')))).toEqual({ a: 'lifted', b: 'resumed' });
    expect(await ledger.status('a')).toMatchObject({ state: 'paused', pausedReason: 'paused by the operator' });
    expect(await ledger.resume('a')).toEqual({ outcome: 'resumed' });
    expect((await ledger.status('a'))?.state).toBe('running');
  });

  it('a campaign the operator paused first stays paused after the template comes back; its own resume then runs it', async () => {
    await campaign('a');
    await ledger.pause('a', 'paused by the operator');
    expect(byId(await ledger.applyTemplateStatus(update('ARCHIVED')))).toEqual({ a: 'held' });
    expect((await ledger.status('a'))?.pausedReason).toBe('paused by the operator');
    expect(byId(await ledger.applyTemplateStatus(update('UNARCHIVED')))).toEqual({ a: 'lifted' });
    expect((await ledger.status('a'))?.state).toBe('paused');
  });

  it("the operator's resume lifts the template's hold too; a later reinstatement finds nothing to lift", async () => {
    await campaign('a');
    await ledger.applyTemplateStatus(update('PAUSED'));
    expect(await ledger.resume('a')).toEqual({ outcome: 'resumed' });
    expect(byId(await ledger.applyTemplateStatus(update('REINSTATED')))).toEqual({ a: 'not-held' });
    expect((await ledger.status('a'))?.state).toBe('running');
  });

  it('a cancelled campaign is left alone; one campaign alone takes the hold of a send’s 132015', async () => {
    await campaign('a');
    await campaign('b');
    await ledger.cancel('b');
    expect(byId(await ledger.applyTemplateStatus(update('PAUSED')))).toEqual({ a: 'paused', b: 'finished' });
    await ledger.applyTemplateStatus(update('REINSTATED'));

    const detail = '132015 Template is Paused';
    expect(await ledger.templateStatusOf('a', { event: 'PAUSED', name: 'order_update', language: 'en_US', detail })).toEqual({
      campaignId: 'a',
      outcome: 'paused',
    });
    expect((await ledger.status('a'))?.pausedReason).toBe(`TEMPLATE_PAUSED: PAUSED order_update (en_US): ${detail}`);
  });

  it('an answer in flight halts over the template’s pause: another code writes its reason, the template’s code does not', async () => {
    await campaign('a');
    const { jobs } = await feedAll(ledger, LEDGER_TEST_NUMBER);
    const [first, second] = jobs;
    if (first === undefined || second === undefined) throw new Error('two jobs fed');
    for (const j of [first, second]) expect((await ledger.claim(j, LEDGER_TEST_NUMBER)).outcome).toBe('claimed');
    await ledger.applyTemplateStatus(update('PAUSED'));
    const templateReason = (await ledger.status('a'))?.pausedReason;

    // 132016 told to the hold first (the send processor's order): the hold stands, the halt keeps its reason.
    expect((await ledger.templateStatusOf('a', { event: '132016', name: 'order_update', language: 'en_US', detail: 'x' })).outcome).toBe(
      'already-held',
    );
    expect(await ledger.halt(first, '132016', 'x', LEDGER_TEST_NUMBER, true)).toEqual({ completedCampaign: false, pausedCampaign: false });
    expect((await ledger.status('a'))?.pausedReason).toBe(templateReason);

    // An expired token needs a human whatever the template does.
    expect(await ledger.halt(second, '190', 'token expired', LEDGER_TEST_NUMBER)).toEqual({
      completedCampaign: false,
      pausedCampaign: true,
    });
    expect((await ledger.status('a'))?.pausedReason).toBe('190: token expired');
    expect(byId(await ledger.applyTemplateStatus(update('REINSTATED')))).toEqual({ a: 'lifted' });
    expect((await ledger.status('a'))?.state).toBe('paused');
  });

  it('a failed status with 132015 or 132016 puts the template’s hold on the campaign of its row', async () => {
    await campaign('a');
    await campaign('b');
    const { jobs } = await feedAll(ledger, LEDGER_TEST_NUMBER);
    const sent = jobs.find((j) => j.campaignId === 'a');
    if (sent === undefined) throw new Error('a job of a fed');
    await ledger.claim(sent, LEDGER_TEST_NUMBER);
    await ledger.settle(sent, { status: 'sent', wamid: 'wamid.A1' }, LEDGER_TEST_NUMBER);
    const [outcome] = await ledger.applyStatuses([
      { phoneNumberId: LEDGER_TEST_NUMBER, wamid: 'wamid.A1', kind: 'failed', at: 1000, code: '132016', detail: 'Template is disabled' },
    ]);
    expect(outcome?.outcome).toBe('applied');
    expect(await ledger.status('a')).toMatchObject({
      state: 'paused',
      pausedReason: 'TEMPLATE_PAUSED: DISABLED order_update (en_US): 132016 Template is disabled',
    });
    expect((await ledger.status('b'))?.state).toBe('running');
    expect(byId(await ledger.applyTemplateStatus(update('REINSTATED')))).toEqual({ a: 'resumed', b: 'not-held' });
  });
});
