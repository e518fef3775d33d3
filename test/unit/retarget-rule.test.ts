import { describe, expect, it } from 'vitest';
import {
  chosenByRule,
  parseRetargetStatus,
  type RetargetCandidate,
  type RetargetStatus,
} from '../../src/campaigns/retarget/retarget-rule.js';
import { AppError } from '../../src/errors/app-error.js';

const HOUR = 3_600_000;
const NOW = 1_800_000_000_000;

const sent: RetargetCandidate = { status: 'sent', sentAt: NOW - 30 * HOUR };
const delivered: RetargetCandidate = { ...sent, deliveredAt: NOW - 25 * HOUR };
const read: RetargetCandidate = { ...delivered, readAt: NOW - 20 * HOUR };
const replied: RetargetCandidate = { ...read, reply: 'STOP_PROMO' };
/** A delivered row whose recipient answered the Flow it opened, with no quick-reply tap. */
const answeredFlow: RetargetCandidate = { ...delivered, flowResponse: '{"flow_token":"unused","size":"M"}' };
const failed: RetargetCandidate = { status: 'failed', sentAt: NOW - 2 * HOUR, failedAt: NOW - 2 * HOUR };
const others: RetargetCandidate[] = (['queued', 'rejected', 'skipped', 'unknown', 'cancelled', 'expired', 'held'] as const).map(
  (status) => ({
    status,
  }),
);

function chosen(status: RetargetStatus, rows: RetargetCandidate[], afterMs?: number): RetargetCandidate[] {
  return rows.filter((row) => chosenByRule({ status, afterMs }, row, NOW));
}

describe('campaign retarget: which rows each --status chooses', () => {
  const all = [sent, delivered, read, replied, answeredFlow, failed, ...others];

  it('failed: only failed rows', () => {
    expect(chosen('failed', all)).toStrictEqual([failed]);
  });

  it('delivered-not-read: delivered rows with no read (not sent-only, not read, not failed), replied to or not', () => {
    expect(chosen('delivered-not-read', all)).toStrictEqual([delivered, answeredFlow]);
  });

  it('not-replied: sent, delivered and read rows with no reply (neither a quick-reply tap nor a Flow’s answer)', () => {
    expect(chosen('not-replied', all)).toStrictEqual([sent, delivered, read]);
  });

  it('clicked: rows whose tracked link was clicked; not-clicked: sent, delivered or read rows with no click', () => {
    const clicked: RetargetCandidate = { ...delivered, clickedAt: NOW - 10 * HOUR };
    const rows = [...all, clicked];
    expect(chosen('clicked', rows)).toStrictEqual([clicked]);
    expect(chosen('not-clicked', rows)).toStrictEqual([sent, delivered, read, replied, answeredFlow]);
    // --after: clicked counts from the first click, not-clicked from the send.
    expect(chosen('clicked', rows, 11 * HOUR)).toStrictEqual([]);
    expect(chosen('clicked', rows, 9 * HOUR)).toStrictEqual([clicked]);
    expect(chosen('not-clicked', [sent, { status: 'sent', sentAt: NOW - HOUR }], 24 * HOUR)).toStrictEqual([sent]);
  });

  it('a failed row Meta had delivered to one device is not delivered-not-read', () => {
    expect(chosen('delivered-not-read', [{ ...failed, deliveredAt: NOW - 3 * HOUR }])).toStrictEqual([]);
  });

  it('--after: delivered-not-read counts from the delivery', () => {
    const recent: RetargetCandidate = { ...sent, deliveredAt: NOW - 23 * HOUR };
    expect(chosen('delivered-not-read', [delivered, recent], 24 * HOUR)).toStrictEqual([delivered]);
    expect(chosen('delivered-not-read', [delivered, recent], 22 * HOUR)).toStrictEqual([delivered, recent]);
  });

  it('--after: not-replied counts from the send, else from the delivery; a row with neither is not old enough', () => {
    const recentSend: RetargetCandidate = { status: 'sent', sentAt: NOW - HOUR };
    const deliveredOnly: RetargetCandidate = { status: 'sent', deliveredAt: NOW - 48 * HOUR };
    const noTimes: RetargetCandidate = { status: 'sent' };
    expect(chosen('not-replied', [sent, recentSend, deliveredOnly, noTimes], 24 * HOUR)).toStrictEqual([sent, deliveredOnly]);
  });

  it('--after: failed counts from the failure', () => {
    expect(chosen('failed', [failed], HOUR)).toStrictEqual([failed]);
    expect(chosen('failed', [failed], 3 * HOUR)).toStrictEqual([]);
  });

  it('exactly --after ago is old enough', () => {
    expect(chosen('delivered-not-read', [delivered], 25 * HOUR)).toStrictEqual([delivered]);
  });
});

describe('parseRetargetStatus', () => {
  it('takes the five statuses', () => {
    const statuses = ['failed', 'delivered-not-read', 'not-replied', 'clicked', 'not-clicked'];
    expect(statuses.map((s) => parseRetargetStatus(s))).toStrictEqual(statuses);
  });

  it('refuses another with OPTION_INVALID naming the choices', () => {
    expect(() => parseRetargetStatus('read')).toThrow(AppError);
    expect(() => parseRetargetStatus('read')).toThrow(
      /--status "read": give one of delivered-not-read, failed, not-replied, clicked, not-clicked/,
    );
  });
});
