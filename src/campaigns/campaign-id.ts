import { randomBytes } from 'node:crypto';

/**
 * Readable, safe as a BullMQ job-ID part (no `:`, never an integer), and in creation order to the minute only: lists order
 * campaigns by the creation time they store (src/campaigns/campaign-order.ts), never by ID.
 */
export function newCampaignId(now = new Date()): string {
  const stamp = now.toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  return `c${stamp}-${randomBytes(3).toString('hex')}`;
}

export const CAMPAIGN_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
