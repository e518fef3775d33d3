import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../workers/serve.js';
import { startWorker, type RunningWorker } from '../../workers/worker.js';
import { openContext, type AppContext } from '../../src/app/app-context.js';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import { writeReport } from '../../src/campaigns/report/report.js';
import { runSend } from '../../src/cli/run/send.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisUserLinks, reportUserIds } from '../../src/redis/redis-user-links.js';
import { webhookKeys } from '../../src/redis/webhook-keys.js';
import { loadTemplatesFile, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { sandboxUserId } from '../../src/sandbox/user-ids.js';
import { tempDir } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from '../support/redis.js';
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
const TOKEN = 'username-stop-token';
const SECRET = 'username-stop-secret';
const NUMBER_A = '106540352242922';
const NUMBER_B = '106540352242923';
/** The username user, and two others. */
const ANA = '+4915110000001';
const BRUNO = '+4915110000002';
const CARLA = '+4915110000003';

describe.each(['always', 'sent-to-user-id'] as const)(
  "a username user's STOP holds for the portfolio (recipient_user_id: %s)",
  (recipientUserIds) => {
    let dir: Awaited<ReturnType<typeof tempDir>>;
    let prefix: string;
    let service: RunningService;
    let sandbox: Sandbox;
    let context: AppContext;
    let worker: RunningWorker | undefined;

    beforeEach(async () => {
      dir = await tempDir();
      prefix = freshPrefix('username-stop');
      const env = {
        REDIS_URL: redisUrl(),
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'silent',
        PORTFOLIOS: `${NUMBER_A}:retail,${NUMBER_B}:retail`,
      };
      service = await startService(
        { port: 0, host: '127.0.0.1' },
        { ...env, WHATSAPP_APP_SECRET: SECRET, WEBHOOK_VERIFY_TOKEN: 'username-stop-verify' },
        silentLogger(),
      );
      sandbox = await startSandbox({
        templates: await loadTemplatesFile(SAMPLE_TEMPLATES),
        accessToken: TOKEN,
        messagesPerSecond: 0,
        phoneNumberIds: [NUMBER_A, NUMBER_B],
        webhooks: {
          url: `${service.url}/webhook`,
          appSecret: SECRET,
          sentAfterMs: 5,
          deliveredAfterMs: 20,
          readShare: 0,
          batchMs: 10,
          recipientUserIds,
        },
      });
      context = await openContext([], {
        ...env,
        WHATSAPP_API_URL: sandbox.url,
        WHATSAPP_ACCESS_TOKEN: TOKEN,
        WHATSAPP_PHONE_NUMBER_ID: NUMBER_A,
        SEND_RATE: '0',
        REPORTS_DIR: join(dir.dir, 'reports'),
      });
      worker = await startWorker(context);
    });

    afterEach(async () => {
      await worker?.close();
      worker = undefined;
      await service.close();
      await sandbox.close();
      await removePrefix(context.redis, prefix);
      await context.close();
      await dir.cleanup();
    });

    async function promo(campaignId: string, phoneNumberId: string, phones: string[]): Promise<string> {
      const file = join(dir.dir, `${campaignId}.csv`);
      await writeFile(
        file,
        ['phone,name,discount,banner', ...phones.map((p) => `${p},Ana,25%,https://example.com/a.jpg`)].join('\n') + '\n',
      );
      const outcome = await runSend(context, {
        file,
        campaignId,
        phoneNumberId,
        template: 'spring_promo',
        language: 'en_US',
        phoneColumn: 'phone',
        params: ['name', 'discount'],
        headerMediaColumn: 'banner',
        templatesFile: SAMPLE_TEMPLATES,
      });
      await waitFor(async () => (await context.ledger.status(outcome.id))?.state, {
        what: `campaign ${campaignId} completed`,
        until: (state) => state === 'completed',
        timeoutMs: 20_000,
      });
      return outcome.id;
    }

    async function rows(id: string): Promise<RowRecord[]> {
      const all: RowRecord[] = [];
      for await (const page of context.ledger.rows(id)) all.push(...page);
      return all;
    }

    it('skips them in the next MARKETING campaign, on another number of the portfolio', async () => {
      const ana = ANA.slice(1);
      const first = await promo('first', NUMBER_A, [ANA, BRUNO]);
      expect((await rows(first)).map((r) => r.status)).toEqual(['sent', 'sent']);
      // Their statuses (phone and user ID) link Ana in the portfolio, whichever of its numbers asks.
      const links = new RedisUserLinks(context.redis, prefix, context.config.portfolios);
      await waitFor(async () => (await links.phonesOf(NUMBER_B, [sandboxUserId(ana)]))[0], { what: "Ana's link learnt" });
      // Every sent row has its user ID in the report.
      await waitFor(async () => (await links.userIdsOf(NUMBER_A, [ana, BRUNO.slice(1)])).every((id) => id !== undefined), {
        what: 'both links learnt',
      });
      const report = join(dir.dir, 'first.csv');
      await writeReport(context.ledger, first, report, {
        userIds: reportUserIds(context.redis, prefix, context.config.portfolios, NUMBER_A),
      });
      const lines = (await readFile(report, 'utf8')).trim().split('\n');
      expect(lines.slice(1).map((line) => line.split(',').slice(1, 4))).toEqual([
        [ANA, sandboxUserId(ana), 'sent'],
        [BRUNO, sandboxUserId(BRUNO.slice(1)), 'sent'],
      ]);

      // Ana has a username: her STOP comes with her user ID only.
      sandbox.setFaults({ usernameUsers: [ana] });
      const answer = await fetch(`${sandbox.url}/_sandbox/user-preferences`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ from: ANA, value: 'stop', phoneNumberId: NUMBER_A }),
      });
      expect(await answer.json()).toEqual({ wa_id: ana, user_id: sandboxUserId(ana), value: 'stop' });
      const stats = await waitFor(() => context.redis.hgetall(webhookKeys(prefix).stats), {
        what: 'the stop applied',
        until: (s) => s.preferences === '1',
      });
      expect(stats.unlinked).toBeUndefined();
      expect(stats.malformed).toBeUndefined();
      // Joined to her phone by the link: an opt-out of the number it came to.
      expect([...(await context.ledger.optOuts(NUMBER_A)).keys()]).toContain(ANA);

      const second = await promo('second', NUMBER_B, [ANA, CARLA]);
      const [anaRow, carlaRow] = await rows(second);
      expect(anaRow).toMatchObject({ phone: ANA, status: 'skipped', errorCode: 'OPTED_OUT' });
      expect(carlaRow).toMatchObject({ phone: CARLA, status: 'sent' });
      expect(
        sandbox
          .accepted()
          .filter((m) => m.phoneNumberId === NUMBER_B)
          .map((m) => m.to),
      ).toEqual([CARLA]);
    }, 60_000);

    it("a username user's quick reply lands on their row, and the report shows their user ID", async () => {
      const ana = ANA.slice(1);
      const id = await promo('replies', NUMBER_A, [ANA, BRUNO]);
      const links = new RedisUserLinks(context.redis, prefix, context.config.portfolios);
      await waitFor(async () => (await links.phonesOf(NUMBER_A, [sandboxUserId(ana)]))[0], { what: "Ana's link learnt" });
      sandbox.setFaults({ usernameUsers: [ana] });
      const wamid = (await rows(id))[0]?.wamid ?? '';
      const answer = await fetch(`${sandbox.url}/_sandbox/inbound`, {
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
      expect(await context.ledger.serviceWindowsOpen(NUMBER_A, [ana])).toEqual([true]);

      const report = join(dir.dir, 'replies.csv');
      await writeReport(context.ledger, id, report, {
        userIds: reportUserIds(context.redis, prefix, context.config.portfolios, NUMBER_A),
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
