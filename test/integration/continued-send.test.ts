import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app/app-context.js';
import { runSend, type SendOptions } from '../../src/cli/run/send.js';
import { summaryText } from '../../src/cli/format.js';
import { isAppError } from '../../src/errors/app-error.js';
import { phoneNumber } from '../support/csv-files.js';
import { dumpKeys } from '../support/key-dump.js';
import { startSendRig, type SendRig } from '../support/send-rig.js';

/**
 * `send FILE --campaign ID` continues a campaign with its own file: rows are matched by row
 * number, so a file with other recipients is refused before anything is written, and a fixed
 * file gives every row an answer without sending any row twice. The dry run reads the same
 * ledger: its ALREADY_SENT rows are the real send's. Driven through `campaign send`'s own
 * code (runSend), the real worker and the sandbox.
 */
const HEADER = 'phone,first_name,order_id';
const good = (n: number, order = `A-${n}`) => `${phoneNumber(n)},Name${n},${order}`;

describe('a continued send', () => {
  let rig: SendRig;
  let context: AppContext;

  beforeEach(async () => {
    rig = await startSendRig('continued', { DUPLICATE_WINDOW_HOURS: '24' });
    context = rig.context;
  });

  afterEach(async () => {
    await rig.close();
  });

  const options = (file: string, extra: Partial<SendOptions> = {}): SendOptions => rig.options(file, extra);

  async function csv(name: string, lines: string[]): Promise<string> {
    const file = join(rig.dir, name);
    await writeFile(file, [HEADER, ...lines].join('\n') + '\n');
    return file;
  }

  /** Resolves when the campaign's state is `completed`, seen through the ledger. */
  async function completed(id: string): Promise<void> {
    await expect.poll(async () => (await context.ledger.status(id))?.state, { timeout: 60_000, interval: 50 }).toBe('completed');
  }

  async function rowsOf(id: string): Promise<{ row: number; phone: string; status: string; errorCode?: string | undefined }[]> {
    const rows = [];
    for await (const page of context.ledger.rows(id))
      for (const r of page) rows.push({ row: r.row, phone: r.phone, status: r.status, errorCode: r.errorCode });
    return rows;
  }

  /** Every key under the prefix and its value, but the templates cache (a send refreshes it) and the times to live. */
  async function ledgerState(): Promise<{ key: string; value: unknown }[]> {
    return (await dumpKeys(context.redis, rig.prefix))
      .filter((k) => !k.key.includes(':templates:'))
      .map(({ key, value }) => ({ key, value }));
  }

  const acceptedPerRecipient = () => rig.acceptedPerRecipient();

  async function refusal(run: Promise<unknown>): Promise<{ code: string; message: string }> {
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isAppError(error)) throw new Error(`expected an AppError, got ${String(error)}`);
    return { code: error.code, message: error.message };
  }

  it('another file with other recipients: CAMPAIGN_FILE_MISMATCH naming the first row that differs; nothing is written', async () => {
    const first = await runSend(
      context,
      options(
        await csv(
          'twelve.csv',
          Array.from({ length: 12 }, (_, i) => good(i + 1)),
        ),
      ),
    );
    await rig.startWorker();
    await completed(first.id);
    await rig.stopWorker();
    const before = await ledgerState();
    const reportsBefore = await readdir(join(rig.dir, 'reports'));

    // Five other recipients: rows 1–5 were sent to phoneNumber(1..5).
    const other = await csv('other.csv', [good(1), good(2), good(103), good(104), good(105)]);
    const refused = await refusal(runSend(context, options(other, { campaign: first.id })));
    expect(refused.code).toBe('CAMPAIGN_FILE_MISMATCH');
    expect(refused.message).toContain(`row 3 (line 4)`);
    expect(refused.message).toContain(`has it for ${phoneNumber(3)} (sent)`);
    expect(refused.message).toContain(`now names ${phoneNumber(103)}`);
    expect(refused.message).toContain('Nothing was written');
    // The dry run says the same.
    expect((await refusal(runSend(context, options(other, { campaign: first.id, dryRun: true })))).code).toBe('CAMPAIGN_FILE_MISMATCH');

    expect(await ledgerState()).toStrictEqual(before);
    expect(await readdir(join(rig.dir, 'reports'))).toStrictEqual(reportsBefore);
    expect(rig.sandbox.accepted()).toHaveLength(12);
  });

  it(
    'a row the campaign sent that now has no readable recipient is a mismatch too; one with the ' +
      'same recipient and other values is kept, not sent again',
    async () => {
      const first = await runSend(context, options(await csv('three.csv', [good(1), good(2), good(3)])));
      await rig.startWorker();
      await completed(first.id);

      const unreadable = await csv('unreadable.csv', [good(1), 'not-a-phone,Name2,A-2', good(3)]);
      const refused = await refusal(runSend(context, options(unreadable, { campaign: first.id })));
      expect(refused.code).toBe('CAMPAIGN_FILE_MISMATCH');
      expect(refused.message).toContain('"not-a-phone", not a valid number');

      const otherValues = await csv('values.csv', [good(1), good(2, 'B-2'), good(3), good(4)]);
      const continued = await runSend(context, options(otherValues, { campaign: first.id }));
      expect(continued).toMatchObject({ rows: 4, queued: 1, kept: 3, keptByStatus: { sent: 3 } });
      await completed(first.id);
      expect(acceptedPerRecipient().get(phoneNumber(2))).toBe(1);
      expect(acceptedPerRecipient().get(phoneNumber(4))).toBe(1);
    },
  );

  it(
    'a fixed file: sent rows kept, rejected and skipped rows take the new verdict, rows after ' +
      'the end are new; every row of the file has an answer',
    async () => {
      const original = await csv('original.csv', [good(1), good(2), good(3), `${phoneNumber(4)},,A-4`, good(1, 'A-5'), good(6)]);
      const first = await runSend(context, options(original));
      expect(first).toMatchObject({ rows: 6, queued: 4, rejected: 1, skipped: 1, byReason: { VALUE_EMPTY: 1, DUPLICATE_PHONE: 1 } });
      await rig.startWorker();
      await completed(first.id);

      // Row 4 fixed, row 5 now another recipient, rows 7–8 new; row 8 names row 2's recipient.
      const fixed = await csv('fixed.csv', [good(1), good(2), good(3), good(4), good(5), good(6), good(7), good(2, 'A-8')]);
      const continued = await runSend(context, options(fixed, { campaign: first.id }));
      expect(continued).toMatchObject({
        rows: 8,
        queued: 3,
        rejected: 0,
        skipped: 1,
        reopened: 2,
        kept: 4,
        keptByStatus: { sent: 4 },
        byReason: { DUPLICATE_PHONE: 1 },
      });
      expect(summaryText(continued, 0)).toContain('4 already in the campaign and kept as they were (4 sent)');
      await completed(first.id);

      const rows = await rowsOf(first.id);
      expect(rows.map((r) => r.row)).toStrictEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(rows.map((r) => r.status)).toStrictEqual(['sent', 'sent', 'sent', 'sent', 'sent', 'sent', 'sent', 'skipped']);
      expect(rows[7]).toMatchObject({ phone: phoneNumber(2), errorCode: 'DUPLICATE_PHONE' });
      const perRecipient = acceptedPerRecipient();
      expect(perRecipient.size).toBe(7);
      expect([...perRecipient.values()].every((n) => n === 1)).toBe(true);
    },
  );

  it('its plan keeps the start and expiry the campaign was created with', async () => {
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const expires = new Date(Date.now() + 7_200_000).toISOString();
    const first = await runSend(context, options(await csv('two.csv', [good(1), good(2)]), { at, expiresAt: expires }));
    const continued = await runSend(context, options(await csv('three.csv', [good(1), good(2), good(3)]), { campaign: first.id }));
    expect(continued.schedule).toStrictEqual({ startsAt: Date.parse(at), expiresAt: Date.parse(expires) });
    expect(continued.estimate.startsAt).toBe(Date.parse(at));
    expect(summaryText(continued, 80)).toContain('(scheduled)');
  });

  it('the dry run counts ALREADY_SENT as the real send does, and writes nothing to the ledger', async () => {
    const file = await csv(
      'nineteen.csv',
      Array.from({ length: 19 }, (_, i) => good(i + 1)),
    );
    const first = await runSend(context, options(file));
    await rig.startWorker();
    await completed(first.id);
    await rig.stopWorker();
    const before = await ledgerState();

    const dry = await runSend(context, options(file, { dryRun: true }));
    expect(dry).toMatchObject({ rows: 19, valid: 0, skipped: 19, byReason: { ALREADY_SENT: 19 } });
    expect(summaryText(dry, 0)).toContain('19  ALREADY_SENT');
    expect(await ledgerState()).toStrictEqual(before);
    // With --allow-repeat nothing is a repeat.
    expect(await runSend(context, options(file, { dryRun: true, allowRepeat: true }))).toMatchObject({ valid: 19, skipped: 0 });

    const real = await runSend(context, options(file));
    expect(real).toMatchObject({ rows: 19, queued: 0, skipped: 19, byReason: { ALREADY_SENT: 19 } });
  });
});
