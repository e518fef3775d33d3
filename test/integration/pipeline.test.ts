import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { writeCampaignCsv } from '../support/csv-files.js';
import { admissions, busiestWindow } from '../support/pacer-audit.js';
import { PHONE_NUMBER_ID, pipelinePerTest } from '../support/pipeline.js';
import { waitFor } from '../support/waiting.js';

const SAMPLE_CSV = fileURLToPath(new URL('../../samples/recipients.csv', import.meta.url));

describe('CSV → queue → worker → sandbox → ledger', () => {
  const rig = pipelinePerTest();

  it('sends a 1,000-row campaign: 1,000 distinct message IDs, and the report is what the sandbox accepted', async () => {
    const pipeline = await rig.start({ label: 'thousand' });
    const file = rig.csvPath();
    await writeCampaignCsv(file, 1000);
    const done = pipeline.completed('c-thousand');
    const summary = await pipeline.produce(file, pipeline.definition('c-thousand'));
    expect(summary).toMatchObject({ rows: 1000, queued: 1000, rejected: 0, skipped: 0 });
    const definitionReads = vi.spyOn(pipeline.ledger, 'getCampaign');
    pipeline.startWorker();
    await done;
    // The worker's first jobs all need the campaign's definition at once: read once, not once per job.
    expect(definitionReads).toHaveBeenCalledTimes(1);
    definitionReads.mockRestore();

    const status = await pipeline.ledger.status('c-thousand');
    expect(status?.state).toBe('completed');
    expect(status?.counts).toMatchObject({ total: 1000, sent: 1000, failed: 0, queued: 0, sending: 0 });

    const rows = await pipeline.report('c-thousand');
    expect(rows.map((r) => r.row)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    const wamids = rows.map((r) => r.wamid);
    expect(new Set(wamids).size).toBe(1000);

    const accepted = pipeline.sandbox.accepted();
    expect(accepted).toHaveLength(1000);
    const acceptedTo = new Map(accepted.map((m) => [m.wamid, m.to]));
    for (const row of rows) {
      expect(row.status).toBe('sent');
      expect(acceptedTo.get(row.wamid ?? '')).toBe(row.phone);
    }
    // What reached the API carries the row's variables, in order, and the row's callback data.
    const first = accepted.find((m) => m.to === rows[0]?.phone)?.body as Record<string, unknown>;
    expect(first).toMatchObject({
      to: rows[0]?.phone,
      biz_opaque_callback_data: 'c-thousand/1',
      template: { name: 'order_update', components: [{ type: 'body', parameters: [{ text: 'Name1' }, { text: 'A-1' }] }] },
    });
  });

  it('reports every rejected row with its reason and sends none of them', async () => {
    const pipeline = await rig.start({ label: 'rejects' });
    const done = pipeline.completed('c-rejects');
    pipeline.startWorker();
    const summary = await pipeline.produce(SAMPLE_CSV, pipeline.definition('c-rejects'));
    expect(summary).toMatchObject({ rows: 197, queued: 190, rejected: 6, skipped: 1 });
    expect(summary.byReason).toEqual({
      PHONE_MISSING: 1,
      PHONE_INVALID: 1,
      VALUE_LINE_BREAK: 1,
      VALUE_TAB: 1,
      VALUE_EMPTY: 1,
      FIELD_COUNT: 1,
      DUPLICATE_PHONE: 1,
    });
    await done;

    const rows = await pipeline.report('c-rejects');
    const refused = rows.filter((r) => r.status === 'rejected' || r.status === 'skipped');
    expect(refused.map((r) => [r.row, r.errorCode])).toEqual([
      [20, 'PHONE_MISSING'],
      [45, 'PHONE_INVALID'],
      [70, 'VALUE_LINE_BREAK'],
      [95, 'VALUE_TAB'],
      [120, 'VALUE_EMPTY'],
      [140, 'DUPLICATE_PHONE'],
      [160, 'FIELD_COUNT'],
    ]);
    expect(refused.find((r) => r.row === 70)?.errorDetail).toContain('column "first_name"');
    const sentTo = new Set(pipeline.sandbox.accepted().map((m) => m.to));
    expect(pipeline.sandbox.accepted()).toHaveLength(190);
    for (const r of refused.filter((r) => r.status === 'rejected')) expect(sentTo.has(r.phone)).toBe(false);
  });

  it('with 20% of answers 503 every row is still sent exactly once', async () => {
    const pipeline = await rig.start({
      label: 'faults',
      backoffMs: 20,
      attempts: 12,
      sandbox: { faults: { errorRate: 0.2, errorStatuses: [503] } },
    });
    const file = rig.csvPath();
    await writeCampaignCsv(file, 500);
    const done = pipeline.completed('c-faults');
    pipeline.startWorker();
    await pipeline.produce(file, pipeline.definition('c-faults'));
    await done;

    const stats = pipeline.sandbox.stats();
    expect(stats.rejectedByCode['133004'] ?? 0).toBeGreaterThan(50);
    const accepted = pipeline.sandbox.accepted();
    expect(accepted).toHaveLength(500);
    expect(new Set(accepted.map((m) => m.to)).size).toBe(500);
    const rows = await pipeline.report('c-faults');
    expect(rows.every((r) => r.status === 'sent')).toBe(true);
    expect(rows.some((r) => r.attempts > 1)).toBe(true);
  });

  it('retries timed-out requests and still sends each row once', async () => {
    // The sandbox never answers (nor accepts) 10% of requests. The client timeout leaves room
    // for real answers on a loaded machine: a real answer arriving after the timeout would be
    // a genuine duplicate, which is a different test.
    const pipeline = await rig.start({
      label: 'timeouts',
      timeoutMs: 2000,
      backoffMs: 20,
      attempts: 12,
      sandbox: { faults: { timeoutRate: 0.1 } },
    });
    const file = rig.csvPath();
    await writeCampaignCsv(file, 200);
    const done = pipeline.completed('c-timeouts');
    pipeline.startWorker();
    await pipeline.produce(file, pipeline.definition('c-timeouts'));
    await done;
    const accepted = pipeline.sandbox.accepted();
    expect(accepted).toHaveLength(200);
    expect(new Set(accepted.map((m) => m.to)).size).toBe(200);
    const rows = await pipeline.report('c-timeouts');
    expect(rows.filter((r) => r.attempts > 1).length).toBeGreaterThan(0);
  });

  it('sending the same file twice into the same campaign duplicates no backlog entry and no message', async () => {
    const pipeline = await rig.start({ label: 'twice' });
    const file = rig.csvPath();
    await writeCampaignCsv(file, 300);
    const first = await pipeline.produce(file, pipeline.definition('c-twice'));
    const second = await pipeline.produce(file, pipeline.definition('c-twice'));
    expect(first.queued).toBe(300);
    // Rows still queued keep their one place in the backlog: nothing is added for them again.
    expect(second.queued).toBe(0);
    expect(await pipeline.redis.llen(`${pipeline.prefix}:{${PHONE_NUMBER_ID}}:campaign:c-twice:pending`)).toBe(300);
    expect(second.rows).toBe(300);
    const done = pipeline.completed('c-twice');
    pipeline.startWorker();
    await done;
    const third = await pipeline.produce(file, pipeline.definition('c-twice'));
    expect(third.queued).toBe(0);
    expect((await pipeline.ledger.status('c-twice'))?.counts).toMatchObject({ total: 300, sent: 300 });
    expect(pipeline.sandbox.accepted()).toHaveLength(300);
  });

  it(
    'a template gone since the check (132001, it would fail every row) halts the campaign at ' +
      'its first answer: paused with the code, no row burnt',
    async () => {
      const pipeline = await rig.start({ label: 'permanent' });
      const file = rig.csvPath();
      await writeCampaignCsv(file, 5);
      pipeline.startWorker();
      // The ledger is told the template takes 2 variables, but the language is one Meta has no translation for.
      await pipeline.produce(file, pipeline.definition('c-permanent', { language: 'xx_XX' }));
      const status = await waitFor(() => pipeline.ledger.status('c-permanent'), {
        what: 'the campaign paused',
        timeoutMs: 30_000,
        until: (s) => s?.state === 'paused',
      });
      expect(status?.pausedReason).toMatch(/^132001: /);
      expect(status?.counts).toMatchObject({ failed: 0, sent: 0 });
      expect(pipeline.sandbox.accepted()).toHaveLength(0);
    },
  );

  it('holds the limiter: the pacer admits no more than SEND_RATE in any second (on Redis’s clock)', async () => {
    const pipeline = await rig.start({ label: 'limiter', rate: 40 });
    const file = rig.csvPath();
    await writeCampaignCsv(file, 160);
    const done = pipeline.completed('c-limiter');
    pipeline.startWorker();
    await pipeline.produce(file, pipeline.definition('c-limiter'));
    await done;
    expect(pipeline.sandbox.stats().accepted).toBe(160);
    // Checked where it is decided: what a receiver sees after event-loop and network delays
    // on a loaded machine is `npm run bench`'s figure, not a test's.
    const stamps = await admissions(pipeline.redis, pipeline.pacerAuditKey);
    expect(stamps).toHaveLength(160);
    expect(busiestWindow(stamps)).toBeLessThanOrEqual(40);
    // 160 admissions at 40 per second (plus the guard) cannot span less than three seconds.
    expect((stamps.at(-1) ?? 0) - (stamps[0] ?? 0)).toBeGreaterThan(3000);
  });
});
