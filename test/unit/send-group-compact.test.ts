import { describe, expect, it } from 'vitest';
import {
  compactGroup,
  groupRows,
  isSendGroup,
  queuedSendId,
  rowsOf,
  sendGroupSchema,
  type SendGroup,
} from '../../src/campaigns/send-job.js';

/** A group as the queue keeps it: its campaign once when all its rows share it; the same rows read back either way. */
describe('a group job kept small', () => {
  const fed: SendGroup = { group: 'g.c1-7.3', rows: 'c1 7 0,c1 8 2,c1 9 0', pairDelays: { 'c1 8': 1 } };

  it('names one campaign once and each row as "row" or "row k"', () => {
    const kept = compactGroup(fed);
    expect(kept).toEqual({ group: 'g.c1-7.3', campaign: 'c1', rows: '7,8 2,9', pairDelays: { 'c1 8': 1 } });
    expect(sendGroupSchema.parse(kept)).toEqual(kept);
  });

  it('reads back the same rows, requeue numbers and pair delays as the group fed', () => {
    const kept = compactGroup(fed);
    expect(groupRows(kept)).toEqual(groupRows(fed));
    expect(groupRows(kept)).toEqual([
      { campaignId: 'c1', row: 7, inGroup: 'g.c1-7.3' },
      { campaignId: 'c1', row: 8, inGroup: 'g.c1-7.3', requeue: 2, pairDelays: 1 },
      { campaignId: 'c1', row: 9, inGroup: 'g.c1-7.3' },
    ]);
    expect(rowsOf(kept)).toBe(3);
    expect(compactGroup(kept)).toBe(kept);
  });

  it('hands out rows that read as jobs of one row, each with its own job ID', () => {
    const rows = groupRows(fed);
    expect(rows.map(isSendGroup)).toEqual([false, false, false]);
    expect(rows.map(queuedSendId)).toEqual(['c1-7', 'c1-8-r2', 'c1-9']);
  });

  it('keeps a group of several campaigns, or of rows it cannot read, as fed', () => {
    const mixed: SendGroup = { group: 'g.c1-7.2', rows: 'c1 7 0,c2 3 0' };
    expect(compactGroup(mixed)).toBe(mixed);
    const odd: SendGroup = { group: 'g.c1-7.2', rows: 'c1 7 0,c1 8' };
    expect(compactGroup(odd)).toBe(odd);
  });
});
