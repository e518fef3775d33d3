import { randomBytes } from 'node:crypto';

/** Readable, sortable by creation time, and safe as a BullMQ job-ID part (no `:`, never an integer). */
export function newCampaignId(now = new Date()): string {
  const stamp = now.toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  return `c${stamp}-${randomBytes(3).toString('hex')}`;
}

export const CAMPAIGN_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
