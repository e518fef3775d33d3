import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeReport } from '../../src/campaigns/report/report.js';
import { RedisUserLinks, reportUserIds } from '../../src/redis/webhooks/redis-user-links.js';
import { webhookKeys } from '../../src/redis/webhooks/webhook-keys.js';
import { sandboxUserId } from '../../src/sandbox/user-ids.js';
import { PORTFOLIO_NUMBERS, PortfolioPipeline } from '../support/portfolio-pipeline.js';
import { waitFor } from '../support/waiting.js';

/**
 * A username user's STOP through the real pipeline: the sandbox (Meta in 2026: status changes
 * with the recipients' user IDs in `value.contacts`, beside the statuses; a username user's
 * `user_preferences` with `user_id` only), `campaign serve` (its intake and consumer) and the
 * worker, two numbers of one portfolio. The first campaign, from number A, teaches the
 * portfolio the user's link (their statuses' contacts carry phone and user ID); their STOP
 * comes with no phone; the next MARKETING campaign, from number B, skips them. Played with
 * statuses as both of Meta's pages print them: with `recipient_user_id` (June 2026) and with
 * the user ID in `contacts[]` alone (November 2025).
 */
const [NUMBER_A, NUMBER_B] = PORTFOLIO_NUMBERS;
/** The username user, and two others. */
const ANA = '+4915110000001';
const BRUNO = '+4915110000002';
const CARLA = '+4915110000003';

describe.each(['always', 'sent-to-user-id'] as const)(
  "a username user's STOP holds for the portfolio (recipient_user_id: %s)",
  (recipientUserIds) => {
    let pipeline: PortfolioPipeline;

    beforeEach(async () => {
      pipeline = await PortfolioPipeline.start({ name: 'username-stop', webhooks: { recipientUserIds } });
    });

    afterEach(async () => {
      await pipeline.close();
    });

    const promo = (campaignId: string, phoneNumberId: string, phones: string[]) => pipeline.send(campaignId, phoneNumberId, phones);
    const rows = (id: string) => pipeline.rows(id);

    it('skips them in the next MARKETING campaign, on another number of the portfolio', async () => {
      const ana = ANA.slice(1);
      const first = await promo('first', NUMBER_A, [ANA, BRUNO]);
      expect((await rows(first)).map((r) => r.status)).toEqual(['sent', 'sent']);
      // Their statuses (phone and user ID) link Ana in the portfolio, whichever of its numbers asks.
      const links = new RedisUserLinks(pipeline.context.redis, pipeline.prefix, pipeline.context.config.portfolios);
      await waitFor(async () => (await links.phonesOf(NUMBER_B, [sandboxUserId(ana)]))[0], { what: "Ana's link learnt" });
      // Every sent row has its user ID in the report.
      await waitFor(async () => (await links.userIdsOf(NUMBER_A, [ana, BRUNO.slice(1)])).every((id) => id !== undefined), {
        what: 'both links learnt',
      });
      const report = pipeline.file('first.csv');
      await writeReport(pipeline.context.ledger, first, report, {
        userIds: reportUserIds(pipeline.context.redis, pipeline.prefix, pipeline.context.config.portfolios, NUMBER_A),
      });
      const lines = (await readFile(report, 'utf8')).trim().split('\n');
      expect(lines.slice(1).map((line) => line.split(',').slice(1, 4))).toEqual([
        [ANA, sandboxUserId(ana), 'sent'],
        [BRUNO, sandboxUserId(BRUNO.slice(1)), 'sent'],
      ]);

      // Ana has a username: her STOP comes with her user ID only.
      pipeline.sandbox.setFaults({ usernameUsers: [ana] });
      const answer = await fetch(`${pipeline.sandbox.url}/_sandbox/user-preferences`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ from: ANA, value: 'stop', phoneNumberId: NUMBER_A }),
      });
      expect(await answer.json()).toEqual({ wa_id: ana, user_id: sandboxUserId(ana), value: 'stop' });
      const stats = await waitFor(() => pipeline.context.redis.hgetall(webhookKeys(pipeline.prefix).stats), {
        what: 'the stop applied',
        until: (s) => s.preferences === '1',
      });
      expect(stats.unlinked).toBeUndefined();
      expect(stats.malformed).toBeUndefined();
      // Joined to her phone by the link: an opt-out of the number it came to.
      expect([...(await pipeline.context.ledger.optOuts(NUMBER_A)).keys()]).toContain(ANA);

      const second = await promo('second', NUMBER_B, [ANA, CARLA]);
      const [anaRow, carlaRow] = await rows(second);
      expect(anaRow).toMatchObject({ phone: ANA, status: 'skipped', errorCode: 'OPTED_OUT' });
      expect(carlaRow).toMatchObject({ phone: CARLA, status: 'sent' });
      expect(
        pipeline.sandbox
          .accepted()
          .filter((m) => m.phoneNumberId === NUMBER_B)
          .map((m) => m.to),
      ).toEqual([CARLA]);
    }, 60_000);

    it("a username user's quick reply lands on their row, and the report shows their user ID", async () => {
      const ana = ANA.slice(1);
      const id = await promo('replies', NUMBER_A, [ANA, BRUNO]);
      const links = new RedisUserLinks(pipeline.context.redis, pipeline.prefix, pipeline.context.config.portfolios);
      await waitFor(async () => (await links.phonesOf(NUMBER_A, [sandboxUserId(ana)]))[0], { what: "Ana's link learnt" });
      pipeline.sandbox.setFaults({ usernameUsers: [ana] });
      const wamid = (await rows(id))[0]?.wamid ?? '';
      const answer = await fetch(`${pipeline.sandbox.url}/_sandbox/inbound`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          from: ANA,
          button: { payload: 'MORE_OFFERS', text: 'More offers' },
          contextId: wamid,
          phoneNumberId: NUMBER_A,
        }),
      });
      expect(answer.status).toBe(200);
      const [anaRow] = await waitFor(() => rows(id), { what: "Ana's reply on her row", until: (r) => r[0]?.reply !== undefined });
      expect(anaRow?.reply).toBe('MORE_OFFERS');
      // Her message came without a phone and still opened the window of her phone.
      expect(await pipeline.context.ledger.serviceWindowsOpen(NUMBER_A, [ana])).toEqual([true]);

      const report = pipeline.file('replies.csv');
      await writeReport(pipeline.context.ledger, id, report, {
        userIds: reportUserIds(pipeline.context.redis, pipeline.prefix, pipeline.context.config.portfolios, NUMBER_A),
      });
      const lines = (await readFile(report, 'utf8')).trim().split('\n');
      expect(lines.map((line) => line.split(',').slice(0, 3))).toEqual([
        ['row', 'phone', 'user_id'],
        ['1', ANA, sandboxUserId(ana)],
        ['2', BRUNO, sandboxUserId(BRUNO.slice(1))],
      ]);
    }, 60_000);
  },
);
