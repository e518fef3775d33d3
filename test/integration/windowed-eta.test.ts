import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { CliProcess, runCli } from '../support/cli-process.js';
import { phoneNumber, tempDir } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { parseExposition, valueOf } from './metrics-exposition.js';

/**
 * The ETA of a campaign whose send window is closed now, created as an operator creates it
 * (`campaign send --window`, the compiled CLI), read where an operator reads it: /metrics
 * (cw_campaign_eta_seconds), the campaigns list and the campaign's page of `campaign serve`,
 * and `campaign status --watch`. Each says at least the time to the window's opening (the
 * rows wait for it), and the page shows the window, the waiting rows and the next opening.
 * No worker runs: the rows stay in their lane.
 */
const MINUTE = 60_000;
const ROWS = 20;
const RATE = 10;
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

interface LiveView {
  id: string;
  fields: Record<string, string>;
}

/** `2h 59m 58s` → seconds (src/dashboard/display-format.ts duration()). */
function seconds(text: string): number {
  const match = /^(?:(\d+)h )?(?:(\d+)m )?(\d+)s$/.exec(text);
  if (match === null) throw new Error(`not a duration: ${text}`);
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3]);
}

describe('the ETA of a windowed campaign whose window is closed now', () => {
  const prefix = freshPrefix('windowed-eta');
  let redis: Redis;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let env: Record<string, string>;
  let service: RunningService;
  let id: string;
  /** The window opens 3 hours from now (whole minutes, in UTC, the rows' zone) for an hour. */
  let opensAt: number;

  beforeAll(async () => {
    redis = testRedis();
    dir = await tempDir();
    env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_PHONE_NUMBER_ID: '106540352242922',
      SEND_RATE: String(RATE),
      LOG_LEVEL: 'silent',
      REPORTS_DIR: join(dir.dir, 'reports'),
      WHATSAPP_APP_SECRET: 'windowed-eta-secret',
      WEBHOOK_VERIFY_TOKEN: 'windowed-eta-verify',
    };
    opensAt = Math.ceil((Date.now() + 3 * 60 * MINUTE) / MINUTE) * MINUTE;
    const file = join(dir.dir, 'windowed.csv');
    const lines = [
      'phone,first_name,order_id,tz',
      ...Array.from({ length: ROWS }, (_, i) => `${phoneNumber(i + 1)},Ann${i + 1},A-${i + 1},Etc/UTC`),
    ];
    await writeFile(file, `${lines.join('\n')}\n`);
    const window = `${hhmm(opensAt)}-${hhmm(opensAt + 60 * MINUTE)}`;
    const send = await runCli(
      [
        'send',
        file,
        '--template',
        'order_update',
        '--language',
        'en_US',
        '--params',
        'first_name,order_id',
        '--templates',
        SAMPLE_TEMPLATES,
        '--window',
        window,
        '--timezone-column',
        'tz',
        '--json',
      ],
      env,
    );
    expect(send.code, send.stderr).toBe(0);
    const summary = JSON.parse(send.stdout) as { id: string; queued: number };
    expect(summary.queued).toBe(ROWS);
    id = summary.id;
    service = await startService({ port: 0, host: '127.0.0.1' }, env, silentLogger());
  });

  afterAll(async () => {
    await service?.close();
    await removePrefix(redis, prefix);
    await redis.quit();
    await dir.cleanup();
  });

  /** Seconds from `at` to the opening, and the most an ETA read between `before` and `after` may say: the opening, then 20 rows at 10/s. */
  const bounds = (before: number, after: number) => ({
    least: (opensAt - after) / 1000,
    most: (opensAt - before) / 1000 + ROWS / RATE + 1,
  });

  it('cw_campaign_eta_seconds is at least the time to the opening', async () => {
    const before = Date.now();
    const exposition = parseExposition(await (await fetch(`${service.url}/metrics`)).text());
    const { least, most } = bounds(before, Date.now());
    const eta = valueOf(exposition, 'cw_campaign_eta_seconds', { campaign_id: id });
    expect(eta).toBeGreaterThanOrEqual(least);
    expect(eta).toBeLessThanOrEqual(most);
    // Far beyond what the rows take at SEND_RATE: the window, not the rate, decides.
    expect(eta).toBeGreaterThan(2 * 3600);
  });

  it(
    "the campaigns list and the campaign's page: the ETA at least the time to the opening; " +
      'the window, the waiting rows and the next opening',
    async () => {
      const before = Date.now();
      const [list, live, page] = await Promise.all([
        fetch(`${service.url}/api/campaigns`).then(async (r) => (await r.json()) as { campaigns: LiveView[] }),
        fetch(`${service.url}/api/campaigns/${id}`).then(async (r) => (await r.json()) as { campaigns: LiveView[] }),
        fetch(`${service.url}/campaigns/${id}`).then((r) => r.text()),
      ]);
      const { least, most } = bounds(before, Date.now());
      const listed = list.campaigns.find((c) => c.id === id)?.fields;
      const shown = live.campaigns[0]?.fields;
      for (const fields of [listed, shown]) {
        const eta = seconds(fields?.eta ?? '');
        // duration() rounds to the second.
        expect(eta).toBeGreaterThanOrEqual(Math.floor(least));
        expect(eta).toBeLessThanOrEqual(most);
      }
      const nextOpening = `${new Date(opensAt).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
      expect(shown).toMatchObject({
        window: `${hhmm(opensAt)}-${hhmm(opensAt + 60 * MINUTE)} local, every day of each recipient`,
        waiting: String(ROWS),
        nextWindow: nextOpening,
      });
      expect(page).toContain(
        `<dt>Send window</dt><dd><span data-field="window">${hhmm(opensAt)}-${hhmm(opensAt + 60 * MINUTE)} ` +
          `local, every day of each recipient</span></dd>`,
      );
      expect(page).toContain(
        `<span data-field="waiting">${ROWS}</span> rows · next opening <span data-field="nextWindow">${nextOpening}</span>`,
      );
      expect(seconds(/<span data-field="eta">([^<]+)<\/span>/.exec(page)?.[1] ?? '')).toBeGreaterThanOrEqual(Math.floor(least));
    },
  );

  it('campaign status --watch --json: the same ETA, the waiting rows and the next opening', async () => {
    const watch = new CliProcess(['status', id, '--watch', '--json'], env);
    try {
      const before = Date.now();
      const [line] = await watch.waitFor(/^\{.*\}$/m);
      const { least, most } = bounds(before - 5000, Date.now());
      const view = JSON.parse(line) as { etaSeconds: number | null; waiting: number; nextWindowAt: string; rate: number | null };
      expect(view).toMatchObject({ waiting: ROWS, nextWindowAt: new Date(opensAt).toISOString(), rate: null });
      expect(view.etaSeconds).toBeGreaterThanOrEqual(Math.floor(least));
      expect(view.etaSeconds).toBeLessThanOrEqual(most);
    } finally {
      expect(await watch.stop('SIGINT')).toBe(130);
    }
  });

  it("the page's reschedule form refuses 30 February with TIME_INVALID, naming the field and the value; the start stays", async () => {
    const page = await (await fetch(`${service.url}/campaigns/${id}`)).text();
    const token = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const response = await fetch(`${service.url}/campaigns/${id}/reschedule`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ csrf: token, at: '2027-02-30T09:00:00+01:00' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: service.url },
    });
    expect(response.status).toBe(400);
    const refused = await response.text();
    expect(refused).toContain('New start &quot;2027-02-30T09:00:00+01:00&quot;: 2027-02-30 has no such day: February 2027 has 28 days');
    expect(refused).not.toContain('in the past');
    expect((await new RedisLedger(redis, prefix).status(id))?.startsAt).toBeUndefined();
  });
});
