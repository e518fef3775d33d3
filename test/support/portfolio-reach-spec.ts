import { describe, expect, it } from 'vitest';
import type { FeedOptions, FeedResult } from '../../src/campaigns/ledger.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { portfolioLimitKeys } from '../../src/redis/pacer/portfolio-limit-keys.js';
import { DEFAULT_PORTFOLIO } from '../../src/portfolios/portfolios.js';
import type { RedisClient } from '../../src/redis/key-scope.js';
import { LedgerContext } from '../../src/redis/ledger/ledger-context.js';
import { feedKeys, reachKey, reachPendingKey } from '../../src/redis/ledger/ledger-keys.js';
import { PortfolioReach, REACH_LEASE_MS, REACH_RECORD_STALE_MS } from '../../src/redis/ledger/ledger-reach.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { numberScope } from '../../src/redis/key-scope.js';
import { phoneNumber } from './csv-files.js';
import { ledgerTestDefinition, queuedRow } from './ledger-fixtures.js';
import { TestClock } from './test-clock.js';

/** Two numbers of one portfolio (default: PORTFOLIOS names neither). */
export const NUMBER_A = '106540352242922';
export const NUMBER_B = '106540352242923';

export interface ReachRig {
  redis: RedisClient;
  prefix: string;
  /** Removes what the test wrote (a fresh cluster needs nothing). */
  cleanup(): Promise<void>;
}

/**
 * The messaging limit of a business portfolio (reach-reserve.lua, feed.lua, reach-commit.lua)
 * through RedisLedger.feed, on a real Redis or a real Redis Cluster: numbers of one portfolio
 * share its limit, never more new recipients across them than it allows, whatever the order
 * or concurrency of their feeds; a lease or a record a dead feeder left behind is recovered.
 */
export function describePortfolioReach(label: string, open: () => Promise<ReachRig>): void {
  describe(label, () => {
    async function setUp() {
      const rig = await open();
      const clock = TestClock.stopped();
      const ledger = new RedisLedger(rig.redis, rig.prefix, { clock });
      /** A campaign of `rows` queued rows on `number`, to phoneNumber(first) onwards. */
      const campaign = async (id: string, number: string, rows: number, first = 1): Promise<void> => {
        await ledger.createCampaign({ ...ledgerTestDefinition(id), phoneNumberId: number });
        await ledger.recordIngested(
          id,
          number,
          Array.from({ length: rows }, (_, i) => queuedRow(i + 1, phoneNumber(first + i))),
        );
        await ledger.finishIngest(id);
      };
      const feed = (number: string, more: Partial<FeedOptions> = {}, windowSize = 100): Promise<FeedResult> =>
        ledger.feed(number, { windowSize, minBatch: 1, refreshAfterMs: 3_600_000, refreshMost: 0, ...more });
      const reached = (portfolio = DEFAULT_PORTFOLIO) => rig.redis.zcard(portfolioLimitKeys(rig.prefix, portfolio).reach);
      return { ...rig, clock, ledger, campaign, feed, reached };
    }
    const rows = (jobs: SendJob[]) => jobs.map((j) => `${j.campaignId}/${j.row}`);

    it('two numbers share the limit: the second gets only what the first left, and says it is held', async () => {
      const t = await setUp();
      try {
        await t.campaign('a', NUMBER_A, 4, 1);
        await t.campaign('b', NUMBER_B, 4, 11);
        expect(rows((await t.feed(NUMBER_A, { messagingLimit: 5 })).jobs)).toEqual(['a/1', 'a/2', 'a/3', 'a/4']);
        const second = await t.feed(NUMBER_B, { messagingLimit: 5 });
        expect(rows(second.jobs)).toEqual(['b/1']);
        expect(second.limitHeld).toMatchObject({ limit: 5, reached: 5 });
        expect(await t.reached()).toBe(5);
        // Nothing more for anyone until places free; no lease or record is left behind.
        expect((await t.feed(NUMBER_A, { messagingLimit: 5 })).jobs).toEqual([]);
        expect((await t.feed(NUMBER_B, { messagingLimit: 5 })).jobs).toEqual([]);
        expect(await t.redis.hlen(portfolioLimitKeys(t.prefix, DEFAULT_PORTFOLIO).leases)).toBe(0);
        expect(await t.redis.hlen(reachPendingKey(t.prefix, NUMBER_B))).toBe(0);
        // A day later the places are free again.
        t.clock.advance(24 * 3_600_000 + 1);
        expect(rows((await t.feed(NUMBER_B, { messagingLimit: 5 })).jobs)).toEqual(['b/2', 'b/3', 'b/4']);
      } finally {
        await t.cleanup();
      }
    });

    it('a recipient the portfolio reached through another number takes no new place', async () => {
      const t = await setUp();
      try {
        await t.campaign('a', NUMBER_A, 3, 1);
        await t.campaign('b', NUMBER_B, 3, 1);
        expect((await t.feed(NUMBER_A, { messagingLimit: 3 })).jobs).toHaveLength(3);
        // B holds them once (new to B, no place left), learns from the portfolio that they are reached, then feeds them.
        const first = await t.feed(NUMBER_B, { messagingLimit: 3 });
        const second = await t.feed(NUMBER_B, { messagingLimit: 3 });
        expect(rows([...first.jobs, ...second.jobs])).toEqual(['b/1', 'b/2', 'b/3']);
        expect(await t.reached()).toBe(3);
      } finally {
        await t.cleanup();
      }
    });

    it('numbers of different portfolios count apart; the limit stored for a portfolio is the one its feeds read', async () => {
      const t = await setUp();
      try {
        await t.campaign('a', NUMBER_A, 4, 1);
        await t.campaign('b', NUMBER_B, 4, 11);
        await t.ledger.recordMessagingLimit(DEFAULT_PORTFOLIO, 3);
        await t.ledger.recordMessagingLimit('retail', 'unlimited');
        expect((await t.feed(NUMBER_A)).jobs).toHaveLength(3);
        expect((await t.feed(NUMBER_B, { portfolio: 'retail' })).jobs).toHaveLength(4);
        // Unlimited: nothing counted. A raised limit is read at the next feed.
        expect(await t.reached('retail')).toBe(0);
        await t.ledger.recordMessagingLimit(DEFAULT_PORTFOLIO, 4);
        expect(rows((await t.feed(NUMBER_A)).jobs)).toEqual(['a/4']);
      } finally {
        await t.cleanup();
      }
    });

    it('a lease whose feeder died holds its places until it expires, then they are free again', async () => {
      const t = await setUp();
      try {
        await t.campaign('b', NUMBER_B, 4, 11);
        const context = new LedgerContext(t.redis, t.prefix, { clock: t.clock });
        // A feeder of A took every place and died before its feed.
        expect(await new PortfolioReach(context).reserve(DEFAULT_PORTFOLIO, NUMBER_A, 100, 4)).toMatchObject({ granted: 4 });
        expect((await t.feed(NUMBER_B, { messagingLimit: 4 })).jobs).toEqual([]);
        t.clock.advance(REACH_LEASE_MS - 1);
        expect((await t.feed(NUMBER_B, { messagingLimit: 4 })).jobs).toEqual([]);
        t.clock.advance(2);
        expect(rows((await t.feed(NUMBER_B, { messagingLimit: 4 })).jobs)).toEqual(['b/1', 'b/2', 'b/3', 'b/4']);
        expect(await t.reached()).toBe(4);
      } finally {
        await t.cleanup();
      }
    });

    it("a feed whose commit never came is committed by the number's next feed: its recipients count for the portfolio", async () => {
      const t = await setUp();
      try {
        await t.campaign('a', NUMBER_A, 6, 1);
        await t.campaign('b', NUMBER_B, 4, 11);
        const context = new LedgerContext(t.redis, t.prefix, { clock: t.clock });
        // This process has fed A before (an empty window: nothing fed), so A's first-feed seeding is behind it.
        expect((await t.feed(NUMBER_A, { messagingLimit: 6 }, 0)).jobs).toEqual([]);
        // A feeder of A took a lease and fed 3 rows, then died before its commit.
        const lease = await new PortfolioReach(context).reserve(DEFAULT_PORTFOLIO, NUMBER_A, 3, 6);
        const { active, window, groups, groupRows } = feedKeys(t.prefix, NUMBER_A);
        const [fed] = await context.redis.cwFeed(
          active,
          window,
          reachKey(t.prefix, NUMBER_A),
          reachPendingKey(t.prefix, NUMBER_A),
          groups,
          groupRows,
          numberScope(t.prefix, NUMBER_A),
          context.clock.arg(),
          3,
          1,
          3_600_000,
          0,
          '{}',
          lease?.granted ?? -1,
          NUMBER_A,
          lease?.id ?? '',
          REACH_RECORD_STALE_MS,
          '',
          1,
        );
        expect(fed).toHaveLength(9);
        expect(await t.reached()).toBe(0);
        // Another worker of A, a little later: it commits the record left behind.
        t.clock.advance(REACH_RECORD_STALE_MS + 1);
        expect((await t.feed(NUMBER_A, { messagingLimit: 6 }, 4)).jobs).toHaveLength(1);
        expect(await t.reached()).toBe(4);
        expect(await t.redis.hlen(reachPendingKey(t.prefix, NUMBER_A))).toBe(0);
        // So B gets what is left of 6, not more.
        expect((await t.feed(NUMBER_B, { messagingLimit: 6 })).jobs).toHaveLength(2);
      } finally {
        await t.cleanup();
      }
    });

    it("a number's own count from before (an upgrade, a move between portfolios) joins the portfolio's at its first feed", async () => {
      const t = await setUp();
      try {
        await t.campaign('a', NUMBER_A, 1, 1);
        await t.campaign('b', NUMBER_B, 4, 11);
        const now = t.clock.now();
        // A reached three users an hour ago, counted only in its own set.
        await t.redis.zadd(reachKey(t.prefix, NUMBER_A), now - 3_600_000, '491', now - 3_600_000, '492', now - 3_600_000, '493');
        expect((await t.feed(NUMBER_A, { messagingLimit: 5 })).jobs).toHaveLength(1);
        expect(await t.reached()).toBe(4);
        expect(rows((await t.feed(NUMBER_B, { messagingLimit: 5 })).jobs)).toEqual(['b/1']);
      } finally {
        await t.cleanup();
      }
    });

    it('many feeds of both numbers at once: exactly the limit of distinct recipients, each fed once', async () => {
      const t = await setUp();
      try {
        await t.campaign('a', NUMBER_A, 120, 1);
        await t.campaign('b', NUMBER_B, 120, 1001);
        const fedRows = new Set<string>();
        for (let round = 0; round < 6; round++) {
          const results = await Promise.all(
            Array.from({ length: 16 }, (_, i) => t.feed(i % 2 === 0 ? NUMBER_A : NUMBER_B, { messagingLimit: 50 }, 10_000)),
          );
          for (const result of results) for (const row of rows(result.jobs)) fedRows.add(row);
        }
        expect(fedRows.size).toBe(50);
        expect(await t.reached()).toBe(50);
      } finally {
        await t.cleanup();
      }
    });
  });
}
