import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendQueueName, sendQueuePrefix } from '../../src/queue/queue-names.js';
import { sentGuardKeys } from '../../src/redis/ledger/redis-ledger.js';
import { guardEntries, putGuardEntry } from '../support/sent-guard.js';
import type { AppContext } from '../../src/app/app-context.js';
import { cliControl } from '../../src/cli/run/controls.js';
import { runSend, type SendOptions } from '../../src/cli/run/send.js';
import { phoneNumber, writeCampaignCsv } from '../support/csv-files.js';
import { PHONE_NUMBER_ID } from '../support/pipeline.js';
import { startSendRig, type SendRig } from '../support/send-rig.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { waitFor } from '../support/waiting.js';

/**
 * Ordinary use must not break the delivery guarantees: a re-run after Ctrl-C, the same file
 * sent again as a new campaign, a fixed file sent into the same campaign, a job edited in
 * Redis. Driven through `campaign send`'s own code (runSend) and the real worker, against
 * the sandbox; "sent twice" is counted where it matters, in what the sandbox accepted.
 */
describe('safe re-runs', () => {
  let rig: SendRig;
  let sandbox: Sandbox;
  let context: AppContext;
  let prefix: string;

  beforeEach(async () => {
    rig = await startSendRig('rerun', { DUPLICATE_WINDOW_HOURS: '24' });
    ({ sandbox, context, prefix } = rig);
  });

  afterEach(async () => {
    await rig.close();
  });

  const options = (file: string, extra: Partial<SendOptions> = {}): SendOptions => rig.options(file, extra);

  /** Resolves when the campaign's state is `completed` (the worker's event, seen through the ledger). */
  async function completed(id: string): Promise<void> {
    await waitFor(
      async () => {
        const status = await context.ledger.status(id);
        if (status?.state === 'paused' || status?.state === 'cancelled')
          throw new Error(`campaign ${id} is ${status.state}: ${status.pausedReason ?? ''}`);
        return status;
      },
      { what: `campaign ${id} completed`, timeoutMs: 60_000, until: (status) => status?.state === 'completed' },
    );
  }

  /** How often the sandbox accepted a message for each recipient. */
  function acceptedPerRecipient(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const entry of sandbox.accepted()) counts.set(entry.to, (counts.get(entry.to) ?? 0) + 1);
    return counts;
  }

  function repeatedRecipients(): string[] {
    return [...acceptedPerRecipient()].filter(([, n]) => n > 1).map(([to]) => to);
  }

  it('Ctrl-C during ingest keeps what was read and pauses; `send --campaign ID` continues: each recipient gets it once', async () => {
    const file = join(rig.dir, 'big.csv');
    await writeCampaignCsv(file, 2250);
    await rig.startWorker();
    const stop = new AbortController();
    const first = await runSend(context, { ...options(file), signal: stop.signal, onProgress: (read) => read >= 500 && stop.abort() });

    expect(first.interruptedAtRow).toBeGreaterThanOrEqual(500);
    expect(first.interruptedAtRow).toBeLessThan(2250);
    expect(first.rows).toBe(first.interruptedAtRow);
    const paused = await context.ledger.status(first.id);
    expect(paused).toMatchObject({ state: 'paused', pausedReason: `ingest interrupted at row ${first.interruptedAtRow}` });
    expect(paused?.counts.total).toBe(first.rows);

    const second = await runSend(context, options(file, { campaign: first.id }));
    expect(second).toMatchObject({ id: first.id, rows: 2250, interruptedAtRow: undefined });
    await completed(first.id);

    const status = await context.ledger.status(first.id);
    expect(status?.counts).toMatchObject({ total: 2250, sent: 2250 });
    expect(acceptedPerRecipient().size).toBe(2250);
    expect(repeatedRecipients()).toStrictEqual([]);
  });

  const ROWS = 1200;
  it(
    'the same file sent again as a new campaign while the first is paused half-way skips what the first ' +
      'sent as ALREADY_SENT, naming it; resuming the first sends nothing twice',
    async () => {
      const file = join(rig.dir, 'again.csv');
      await writeCampaignCsv(file, ROWS);
      await rig.startWorker();
      const first = await runSend(context, options(file));
      // Paused once it has sent some of its rows, as Ctrl-C or an operator would leave it.
      await new Promise<void>((resolve) => {
        if (sandbox.accepted().length >= 100) resolve();
        sandbox.onAccepted(() => sandbox.accepted().length >= 100 && resolve());
      });
      await cliControl(context, 'pause', first.id, {});

      const rerun = await runSend(context, options(file));
      await completed(rerun.id);
      const alreadySent: string[] = [];
      for await (const page of context.ledger.rows(rerun.id)) {
        for (const row of page) if (row.errorCode === 'ALREADY_SENT') alreadySent.push(row.errorDetail ?? '');
      }
      // Every row the first campaign claimed before it paused (its claim is recorded before the request leaves).
      const sentByFirst = (await context.ledger.status(first.id))?.counts.sent ?? 0;
      expect(sentByFirst).toBeGreaterThan(0);
      expect(alreadySent.length).toBe(sentByFirst);
      expect(alreadySent[0]).toMatch(new RegExp(`campaign ${first.id} row \\d+ sent the same message`));

      // Resuming the first campaign sends nothing the re-run sent.
      await cliControl(context, 'resume', first.id, {});
      await completed(first.id);

      expect(acceptedPerRecipient().size).toBe(ROWS);
      expect(repeatedRecipients()).toStrictEqual([]);
      expect((await context.ledger.status(first.id))?.counts).toMatchObject({ sent: sentByFirst, skipped: ROWS - sentByFirst });
    },
  );

  it('outside the window, with other values, or with --allow-repeat the message is sent again', async () => {
    const file = join(rig.dir, 'three.csv');
    await writeCampaignCsv(file, 3);
    await rig.startWorker();
    const first = await runSend(context, options(file));
    await completed(first.id);

    // Row 1's earlier send is older than the window (its guard entry says it was sent 25 h ago).
    const { sent } = sentGuardKeys(prefix, PHONE_NUMBER_ID);
    const entries = await guardEntries(context.redis, sent);
    const row1 = Object.entries(entries).find(([, owner]) => owner.startsWith(`${first.id}/1/`));
    expect(row1).toBeDefined();
    await putGuardEntry(context.redis, sent, row1?.[0] ?? '', `${first.id}/1/${Date.now() - 25 * 3_600_000}`);
    // Row 2 gets another order ID: another message.
    await writeFile(
      file,
      `phone,first_name,order_id\n${phoneNumber(1)},Name1,A-1\n${phoneNumber(2)},Name2,B-2\n${phoneNumber(3)},Name3,A-3\n`,
    );

    const again = await runSend(context, options(file));
    await completed(again.id);
    expect(again.byReason).toStrictEqual({ ALREADY_SENT: 1 });
    const repeat = await runSend(context, options(file, { allowRepeat: true }));
    await completed(repeat.id);
    expect(repeat.byReason).toStrictEqual({});

    const perRecipient = acceptedPerRecipient();
    expect([perRecipient.get(phoneNumber(1)), perRecipient.get(phoneNumber(2)), perRecipient.get(phoneNumber(3))]).toStrictEqual([3, 3, 2]);
  });

  it('a fixed file sent again into the same campaign sends the rows that were rejected and never a sent row again', async () => {
    const file = join(rig.dir, 'fix.csv');
    const good = (n: number) => `${phoneNumber(n)},Name${n},A-${n}`;
    await writeFile(
      file,
      [
        'phone,first_name,order_id',
        good(1),
        `${phoneNumber(2)},"Bruno" Costa,A-2`,
        good(3),
        `${phoneNumber(4)},Esc\u001b[31m,A-4`,
        good(5),
      ].join('\n') + '\n',
    );
    await rig.startWorker();
    const first = await runSend(context, options(file));
    expect(first).toMatchObject({ rows: 5, queued: 3, rejected: 2 });
    await completed(first.id);

    await writeFile(
      file,
      ['phone,first_name,order_id', good(1), `${phoneNumber(2)},Bruno Costa,A-2`, good(3), `${phoneNumber(4)},Esc,A-4`, good(5)].join(
        '\n',
      ) + '\n',
    );
    const fixed = await runSend(context, options(file, { campaign: first.id }));
    expect(fixed).toMatchObject({ rows: 5, queued: 2, rejected: 0, reopened: 2 });
    await completed(first.id);

    expect((await context.ledger.status(first.id))?.counts).toMatchObject({ total: 5, sent: 5, rejected: 0 });
    expect(acceptedPerRecipient().size).toBe(5);
    expect(repeatedRecipients()).toStrictEqual([]);
  });

  it('a job edited in Redis cannot redirect a message: the worker sends the ledger row’s recipient and values', async () => {
    const file = join(rig.dir, 'edited.csv');
    await writeCampaignCsv(file, 2);
    const sent = await runSend(context, options(file));
    // A job for row 1 carrying another recipient and values (as an edit in Redis would), beside
    // the feeder's job of the same row: the worker runs both, and only one of them sends the row.
    const queue = new Queue(sendQueueName(PHONE_NUMBER_ID), {
      connection: context.redis,
      prefix: sendQueuePrefix(prefix, PHONE_NUMBER_ID),
    });
    await queue.add('send', { campaignId: sent.id, row: 1, to: '+4915199999999', values: ['Mallory', 'X-1'] }, { jobId: `${sent.id}-1` });
    expect((await queue.getJob(`${sent.id}-1`))?.data).toMatchObject({ to: '+4915199999999' });
    await queue.close();

    await rig.startWorker();
    await completed(sent.id);
    const accepted = sandbox.accepted().find((entry) => entry.to.endsWith(phoneNumber(1).slice(1)));
    expect(accepted).toBeDefined();
    expect(repeatedRecipients()).toStrictEqual([]);
    expect(sandbox.accepted().some((entry) => entry.to.endsWith('4915199999999'))).toBe(false);
    expect(JSON.stringify(accepted)).toContain('Name1');
    expect(JSON.stringify(accepted)).not.toContain('Mallory');
  });
});
