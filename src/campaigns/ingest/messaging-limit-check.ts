import type { MessagingLimit } from '../../config/number-settings.js';
import { REACH_WINDOW_MS } from '../send/messaging-reach.js';

/** What the dry run (and `send`) says of the messaging limit of the number's portfolio for this campaign. */
export interface MessagingLimitCheck {
  /** The number's business portfolio: the limit and the count are shared by all its numbers. */
  portfolio: string;
  /**
   * Unique users per moving 24 h; 'unlimited'; undefined: not known (MESSAGING_LIMITS does not name the number and no worker has read its
   * tier yet).
   */
  limit: MessagingLimit | undefined;
  /** Users the portfolio reached in the last 24 h (the feeders' count). */
  reached: number;
  /** Rows still queued in the portfolio's other campaigns: each may take a place before this campaign's. */
  queuedElsewhere: number;
  /** This campaign's rows to send. */
  recipients: number;
  /**
   * Rows that will wait for places to free up: at most this many (a recipient reached in the
   * last 24 h, or with an open service window, takes no new place, and is not told apart here).
   */
  over: number;
  /** When places start to free up: the oldest reach in the 24 h plus 24 h, or 24 h after the first sends when none is counted yet. */
  freesAt: number | undefined;
}

export function checkMessagingLimit(input: {
  portfolio: string;
  limit: MessagingLimit | undefined;
  reached: number;
  queuedElsewhere: number;
  oldestReachedAt: number | undefined;
  recipients: number;
  startsAt: number;
}): MessagingLimitCheck {
  const { portfolio, limit, reached, queuedElsewhere, recipients } = input;
  const known = { portfolio, limit, reached, queuedElsewhere, recipients };
  if (typeof limit !== 'number') return { ...known, over: 0, freesAt: undefined };
  const over = Math.max(0, Math.min(recipients, reached + queuedElsewhere + recipients - limit));
  const freesAt = over === 0 ? undefined : (input.oldestReachedAt ?? input.startsAt) + REACH_WINDOW_MS;
  return { ...known, over, freesAt };
}
