import { createHmac } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { webhookKeys } from '../../src/redis/webhooks/webhook-keys.js';
import { CliProcess } from '../support/cli-process.js';
import { phoneNumber } from '../support/csv-files.js';
import { LEDGER_TEST_NUMBER, feedAll, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';

/**
 * The service killed between its answer and the processing, and nothing lost, with
 * real processes: `campaign serve` A answers 200 to every signed POST (so Meta will never send
 * them again) and is SIGKILLed at once, while its consumer still has statuses to apply. A
 * second service B, started afterwards, must apply every one of them exactly as if A had
 * lived: from the inbox entries A never read, and (after 30 s idle, XAUTOCLAIM) from those A
 * read and never acknowledged. Those 30 s are moved, not waited: the test ages A's pending
 * entries (XCLAIM's IDLE sets how long ago A got them), as a moved clock would.
 */
const SECRET = 'serve-crash-app-secret-0123456789';
const VERIFY_TOKEN = 'serve-crash-verify-token';
const LISTENING = /Webhook service listening on (http:\/\/127\.0\.0\.1:\d+)/;
const NUMBER = LEDGER_TEST_NUMBER;
const ID = 'crash';
const GROUP = 'appliers';
/** How long an entry stays pending with a dead consumer before another takes it over (src/webhooks/webhook-consumer.ts). */
const CLAIM_IDLE_MS = 30_000;
/** Large enough that A cannot apply everything between its last 200 and the kill (see the precondition). */
const ROWS = 10_000;
const STATUSES_PER_POST = 1000;
const CONCURRENT_POSTS = 20;
/** The ledger batches one turn's claims/settles into one script call: chunks of this many per turn. */
const SEED_CHUNK = 1000;
/** Meta's timestamps (seconds): row r delivered at T0 + r, read a minute later, so each row's times are known. */
const T0 = 1_700_000_000;
const deliveredAt = (row: number) => (T0 + row) * 1000;
const readAt = (row: number) => (T0 + row + 60) * 1000;

function env(prefix: string): Record<string, string> {
  return {
    REDIS_URL: redisUrl(),
    QUEUE_PREFIX: prefix,
    WHATSAPP_APP_SECRET: SECRET,
    WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN,
    LOG_LEVEL: 'info',
  };
}

/** A webhook body as Meta sends it: one entry, one change, these statuses. */
function body(statuses: object[]): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '1',
        changes: [
          {
            field: 'messages',
            value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '1', phone_number_id: NUMBER }, statuses },
          },
        ],
      },
    ],
  });
}
const item = (row: number, status: string, seconds: number) => ({
  id: `w${row}`,
  status,
  timestamp: String(seconds),
  recipient_id: phoneNumber(row).slice(1),
});

async function signedPost(url: string, raw: string): Promise<number> {
  const signature = `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
  const response = await fetch(`${url}/webhook`, {
    method: 'POST',
    body: raw,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
  });
  await response.arrayBuffer();
  return response.status;
}

describe('campaign serve killed between its 200 and the processing (real processes, real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;
  const processes: CliProcess[] = [];

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('webhook-serve-crash');
    ledger = new RedisLedger(redis, prefix);
  });

  afterEach(async () => {
    // Each service by its own PID (SIGKILL: nothing of theirs is needed any more).
    for (const p of processes.splice(0)) await p.stop('SIGKILL');
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  /** ROWS rows, each `sent` with message ID w<row>, written through the ledger as the worker does. */
  async function sentCampaign(): Promise<void> {
    await ledger.createCampaign(ledgerTestDefinition(ID));
    // In chunks, as the producer does: one script call cannot take 10,000 rows' arguments.
    for (let start = 1; start <= ROWS; start += SEED_CHUNK) {
      await ledger.recordIngested(
        ID,
        NUMBER,
        Array.from({ length: Math.min(SEED_CHUNK, ROWS - start + 1) }, (_, i) => queuedRow(start + i)),
      );
    }
    await ledger.finishIngest(ID);
    const { jobs } = await feedAll(ledger, NUMBER, ROWS);
    expect(jobs).toHaveLength(ROWS);
    // Promise.all per chunk: the chunk's calls share one event-loop turn, so one script call each.
    for (let i = 0; i < jobs.length; i += SEED_CHUNK) {
      const chunk = jobs.slice(i, i + SEED_CHUNK);
      const claims = await Promise.all(chunk.map((job) => ledger.claim(job, NUMBER)));
      expect(claims.every((c) => c.outcome === 'claimed')).toBe(true);
      await Promise.all(chunk.map((job) => ledger.settle(job, { status: 'sent', wamid: `w${job.row}` }, NUMBER)));
    }
    expect((await ledger.status(ID))?.counts).toMatchObject({ sent: ROWS, delivered: 0, read: 0 });
  }

  /** The webhook bodies: every row's `delivered`, then every row's `read`, STATUSES_PER_POST per body. */
  function bodies(): string[] {
    const all = [
      ...Array.from({ length: ROWS }, (_, i) => item(i + 1, 'delivered', T0 + i + 1)),
      ...Array.from({ length: ROWS }, (_, i) => item(i + 1, 'read', T0 + i + 1 + 60)),
    ];
    const out: string[] = [];
    for (let i = 0; i < all.length; i += STATUSES_PER_POST) out.push(body(all.slice(i, i + STATUSES_PER_POST)));
    return out;
  }

  /** Posts every body, CONCURRENT_POSTS in flight at a time; resolves with each answer's status code. */
  async function postAll(url: string, raws: string[]): Promise<number[]> {
    const codes: number[] = new Array<number>(raws.length);
    let next = 0;
    const lane = async () => {
      while (next < raws.length) {
        const i = next++;
        codes[i] = await signedPost(url, raws[i] ?? '');
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT_POSTS }, lane));
    return codes;
  }

  /** What is left for a consumer: entries in the inbox, and those read by a consumer and not acknowledged. */
  async function inboxState(): Promise<{ length: number; pending: number }> {
    const { inbox } = webhookKeys(prefix);
    const length = await redis.xlen(inbox);
    // No group yet: no consumer has read anything. XPENDING's summary starts with the count.
    if (!(await groupExists())) return { length, pending: 0 };
    const pending = Number(((await redis.xpending(inbox, GROUP)) as [number, ...unknown[]])[0]);
    return { length, pending };
  }

  /** Makes every pending entry of the inbox look `idleMs` idle, keeping its consumer and delivery count. */
  async function agePending(idleMs: number): Promise<void> {
    if (!(await groupExists())) return;
    const inbox = webhookKeys(prefix).inbox;
    const pending = (await redis.xpending(inbox, GROUP, '-', '+', 10_000)) as [string, string, number, number][];
    const byConsumer = new Map<string, string[]>();
    for (const [id, consumer] of pending) byConsumer.set(consumer, [...(byConsumer.get(consumer) ?? []), id]);
    for (const [consumer, ids] of byConsumer)
      await redis.call('XCLAIM', inbox, GROUP, consumer, '0', ...ids, 'IDLE', String(idleMs), 'JUSTID');
  }

  async function groupExists(): Promise<boolean> {
    if ((await redis.exists(webhookKeys(prefix).inbox)) === 0) return false;
    const groups = (await redis.xinfo('GROUPS', webhookKeys(prefix).inbox)) as unknown[][];
    return groups.some((g) => g[1] === GROUP);
  }

  function start(): CliProcess {
    const p = new CliProcess(['serve', '--port', '0', '--host', '127.0.0.1'], env(prefix));
    processes.push(p);
    return p;
  }

  it(`${ROWS} rows' delivered and read statuses, all answered 200, then SIGKILL: a second service applies every one, once`, async () => {
    await sentCampaign();
    const raws = bodies();

    const a = start();
    const urlA = (await a.waitFor(LISTENING))[1] ?? '';
    // A's consumer is at work (its group exists) before the first POST: A is a service that
    // was running all along, reading as the POSTs come in, not one that had not started yet.
    await waitFor(
      () => {
        if (a.child.exitCode !== null) throw new Error(`service A exited:\n${a.output}`);
        return groupExists();
      },
      { what: "service A's consumer group", timeoutMs: 30_000 },
    );
    const codes = await postAll(urlA, raws);
    // The kill comes straight after the last 200: Meta will not send these again, so from here
    // only what A put in Redis before answering can bring the statuses to the rows.
    await a.stop('SIGKILL');
    expect(codes).toEqual(raws.map(() => 200));

    // The precondition that makes this test mean something: A died with work left undone.
    const killedAt = (await ledger.status(ID))?.counts;
    const leftAtKill = await inboxState();
    console.info(
      `at the kill: delivered ${killedAt?.delivered}, read ${killedAt?.read} of ${ROWS}; inbox ` +
        `${leftAtKill.length} entries, ${leftAtKill.pending} pending`,
    );
    expect((killedAt?.delivered ?? 0) < ROWS || (killedAt?.read ?? 0) < ROWS).toBe(true);
    expect(leftAtKill.length).toBeGreaterThan(0);
    await agePending(CLAIM_IDLE_MS + 1000);

    const b = start();
    await b.waitFor(LISTENING);
    // B reads what A never read at once and takes over what A left pending (aged past 30 s idle).
    // Waits until everything is applied and acknowledged; the deadline (not a timing assertion)
    // turns a hang into a failure that shows where it stopped.
    const { counts, left } = await waitFor(
      async () => {
        if (b.child.exitCode !== null || b.child.signalCode !== null) throw new Error(`service B exited:\n${b.output}`);
        return { counts: await ledger.status(ID).then((s) => s?.counts), left: await inboxState() };
      },
      {
        what: 'every status applied and the inbox worked off',
        timeoutMs: 110_000,
        intervalMs: 200,
        until: ({ counts, left }) =>
          (counts?.delivered ?? 0) >= ROWS && (counts?.read ?? 0) >= ROWS && left.length === 0 && left.pending === 0,
      },
    );

    // Every status applied, and once: a status applied twice (B redoing A's half-done entries)
    // would count a row twice and push these above ROWS.
    expect(counts).toMatchObject({ total: ROWS, sent: ROWS, delivered: ROWS, read: ROWS, failed: 0 });
    expect(left).toEqual({ length: 0, pending: 0 });
    expect(await redis.zcard(webhookKeys(prefix).parked)).toBe(0);
    // Every row carries Meta's own times (not a count that happens to match).
    const rows: RowRecord[] = [];
    for await (const page of ledger.rows(ID)) rows.push(...page);
    expect(rows).toHaveLength(ROWS);
    const wrong = rows.filter((r) => r.status !== 'sent' || r.deliveredAt !== deliveredAt(r.row) || r.readAt !== readAt(r.row));
    expect(wrong.slice(0, 3)).toEqual([]);
    expect(b.output).not.toContain(SECRET);
  });
});
