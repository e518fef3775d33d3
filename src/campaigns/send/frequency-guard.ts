import type { CampaignDefinition } from '../campaign.js';

/** A send the caps counted: what `release` takes back when it never reached Meta. */
export interface CountedSend {
  phoneNumberId: string;
  phone: string;
  entry: string;
}

export type FrequencyVerdict =
  /** Nothing to count (no caps, a test send, a kind no cap names). */
  { outcome: 'free' } | { outcome: 'taken'; counted: CountedSend } | { outcome: 'capped'; detail: string };

/**
 * FREQUENCY_CAPS at a row's claim: per recipient and business portfolio, across its campaigns
 * and numbers. `take` counts the send in the same step that checks it, so two numbers claiming
 * for one recipient cannot both pass; `release` takes back a send that never reached Meta.
 */
export interface FrequencyGuard {
  take(definition: CampaignDefinition, phone: string): Promise<FrequencyVerdict>;
  release(counted: CountedSend): Promise<void>;
  /** Per phone, whether a cap holds for it now (counts nothing): the plan's estimate. */
  capped(definition: CampaignDefinition, phones: readonly string[]): Promise<boolean[]>;
}

/** Whether a row's answer means its message may have reached Meta (sent, held, in doubt): such a send counts towards the caps. */
export function mayHaveReachedMeta(status: string): boolean {
  return status === 'sent' || status === 'held' || status === 'unknown' || status === 'confirming';
}
