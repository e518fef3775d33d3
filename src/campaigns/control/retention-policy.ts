import type { CampaignStatus } from '../campaign.js';

/**
 * RETENTION_DAYS: a finished campaign's personal data is purged `retentionMs` after it
 * finished. 0 keeps it until `campaign purge`. Already purged campaigns are not due again.
 */
export function dueForPurge(statuses: readonly CampaignStatus[], now: number, retentionMs: number): string[] {
  if (retentionMs <= 0) return [];
  return statuses
    .filter((s) => s.finishedAt !== undefined && s.purgedAt === undefined && now - s.finishedAt >= retentionMs)
    .map((s) => s.id);
}
