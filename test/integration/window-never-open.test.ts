import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app/app-context.js';
import { runSend, type SendOptions } from '../../src/cli/run/send.js';
import { summaryText } from '../../src/cli/format.js';
import { isAppError } from '../../src/errors/app-error.js';
import { phoneNumber } from '../support/csv-files.js';
import { startSendRig, type SendRig } from '../support/send-rig.js';

/**
 * A row whose possible time zones never share an open hour of the window would wait forever
 * and keep its campaign from completing: a US toll-free number may be in any of 11 zones, from
 * Hawaii to New York, and 09:00-13:00 is never open in all of them at once. Such rows are
 * skipped at ingest as WINDOW_NEVER_OPEN, unless --default-timezone gives them a zone.
 */
const TOLL_FREE = '+18002255288';
const WINDOW = '09:00-13:00';

/** A fixed-offset zone whose local time is 11:xx now: inside WINDOW for the next hour at least. */
function zoneAtEleven(now = new Date()): string {
  const offset = 11 - now.getUTCHours();
  return offset === 0 ? 'Etc/GMT' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

describe('rows whose window never opens', () => {
  let rig: SendRig;
  let context: AppContext;
  let file: string;

  beforeEach(async () => {
    rig = await startSendRig('never-open');
    context = rig.context;
    file = join(rig.dir, 'toll-free.csv');
    await writeFile(
      file,
      ['phone,first_name,order_id,zone', `${TOLL_FREE},Tess,A-1,`, `${phoneNumber(2)},Name2,A-2,${zoneAtEleven()}`].join('\n') + '\n',
    );
  });

  afterEach(async () => {
    await rig.close();
  });

  const options = (extra: Partial<SendOptions> = {}): SendOptions =>
    rig.options(file, { window: WINDOW, timezoneColumn: 'zone', ...extra });

  it('a +1 800 row is skipped as WINDOW_NEVER_OPEN, in the dry run and the send, and its campaign completes', async () => {
    const dry = await runSend(context, options({ dryRun: true }));
    expect(dry).toMatchObject({ rows: 2, valid: 1, skipped: 1, byReason: { WINDOW_NEVER_OPEN: 1 } });
    expect(dry.estimate.neverOpen).toBe(0);
    expect(summaryText(dry, 0)).toMatch(/1 {2}WINDOW_NEVER_OPEN: .*--default-timezone/);

    const sent = await runSend(context, options());
    expect(sent).toMatchObject({ rows: 2, queued: 1, skipped: 1, byReason: { WINDOW_NEVER_OPEN: 1 } });
    await rig.startWorker();
    await expect.poll(async () => (await context.ledger.status(sent.id))?.state, { timeout: 60_000, interval: 50 }).toBe('completed');

    const rows = [];
    for await (const page of context.ledger.rows(sent.id)) rows.push(...page);
    expect(rows[0]).toMatchObject({ row: 1, phone: TOLL_FREE, status: 'skipped', errorCode: 'WINDOW_NEVER_OPEN' });
    expect(rows[0]?.errorDetail).toMatch(/any of 11 time zones .*--timezone-column.*--default-timezone.*--window/);
    expect(rows[1]).toMatchObject({ row: 2, status: 'sent' });
    expect(rig.sandbox.accepted().map((m) => m.to)).toStrictEqual([phoneNumber(2)]);
  });

  it('--default-timezone gives such rows a zone: they are queued and wait for it', async () => {
    const dry = await runSend(context, options({ dryRun: true, defaultTimezone: 'America/New_York' }));
    expect(dry).toMatchObject({ rows: 2, valid: 2, skipped: 0, byReason: {} });
    expect(dry.estimate.lanes.map((lane) => lane.zones)).toContainEqual(['America/New_York']);
  });

  it('a --timezone-column the header lacks refuses the file before the campaign is created', async () => {
    const refused = await runSend(context, options({ timezoneColumn: 'tz', campaign: 'no-tz-column' })).then(
      () => undefined,
      (error: unknown) => (isAppError(error) ? error.code : String(error)),
    );
    expect(refused).toBe('CSV_HEADER_INVALID');
    expect(await context.ledger.status('no-tz-column')).toBeUndefined();
  });

  it('--default-timezone is checked: an unknown zone, or no --window, is refused', async () => {
    const refused = async (extra: Partial<SendOptions>) =>
      runSend(context, options(extra)).then(
        () => undefined,
        (error: unknown) => (isAppError(error) ? error.code : String(error)),
      );
    expect(await refused({ defaultTimezone: 'Mars/Olympus' })).toBe('TIMEZONE_NOT_FOUND');
    expect(await refused({ defaultTimezone: 'America/New_York', window: undefined, timezoneColumn: undefined })).toBe('OPTION_INVALID');
  });
});
