import type { CampaignState, CampaignStatus } from '../campaigns/campaign.js';
import type { WindowStatus } from '../campaigns/report/window-status.js';
import { describeWindow, type SendWindow } from '../campaigns/feed/send-window.js';
import { DASH, clip, count, duration, percent, rate, time } from './display-format.js';
import type { ErrorTally } from './error-tallies.js';
import { queuedRows, sentRows } from './row-figures.js';

/** What the dashboard knows of a campaign besides its status: from its definition and the metrics snapshot. */
export interface CampaignExtras {
  /** Its name for people; undefined without one. */
  name?: string | undefined;
  /** '' when its definition could not be read. */
  phoneNumberId: string;
  /** `template order_update (en_US)` or `text "…"`. */
  message: string;
  /** Seconds to the end with its window, days and expiry (src/campaigns/report/campaign-eta.ts); undefined when it cannot be said. */
  etaSeconds: number | undefined;
  /** `--window` / `--days`; undefined without one. */
  window?: SendWindow | undefined;
  /** Rows waiting for their window and the next opening: read for a campaign's own page only. */
  windowStatus?: WindowStatus | undefined;
  /** Requests per second of its phone number over the last 10 s (cw_send_rate), every worker together. */
  numberRate: number | undefined;
  /** Errors by code, when counted. */
  tally: ErrorTally | undefined;
  /** What Meta's webhooks last said of its template: `quality YELLOW (was GREEN) · category MARKETING (was UTILITY)`. */
  templateNote?: string | undefined;
}

/**
 * A campaign as the dashboard shows it: every figure already written as text, so the page
 * and its live JSON (which the page's script copies into `[data-field]` elements with
 * textContent) say the same.
 */
export interface CampaignView {
  id: string;
  /** '' for a campaign without a name: the pages show its ID alone. */
  name: string;
  phoneNumberId: string;
  state: CampaignState;
  /** 0–100: rows sent (sentRows) of the rows it took to send (queuedRows); a cancelled campaign's shows what it sent. */
  progress: number;
  fields: Record<ViewField, string>;
}

export const VIEW_FIELDS = [
  'state',
  'stateNote',
  'message',
  'template',
  'progress',
  'total',
  'queuedTotal',
  'toSend',
  'queued',
  'sending',
  'confirming',
  'held',
  'sent',
  'delivered',
  'read',
  'failed',
  'unknown',
  'rejected',
  'skipped',
  'cancelled',
  'expired',
  'rate',
  'eta',
  'errors',
  'createdAt',
  'startedAt',
  'finishedAt',
  'window',
  'waiting',
  'nextWindow',
] as const;
export type ViewField = (typeof VIEW_FIELDS)[number];

/** Codes shown on the campaigns list; the campaign's page lists all. */
const LIST_CODES = 3;

export function campaignView(status: CampaignStatus, extras: CampaignExtras): CampaignView {
  const c = status.counts;
  const toSend = c.queued + c.sending + c.confirming;
  const progress = percent(sentRows(c), queuedRows(c));
  const running = status.state === 'running' || status.state === 'ingesting';
  // A scheduled campaign's ETA counts from its start.
  const timed = running || status.state === 'scheduled';
  const waiting = extras.windowStatus;
  return {
    id: status.id,
    name: extras.name ?? '',
    phoneNumberId: extras.phoneNumberId,
    state: status.state,
    progress,
    fields: {
      state: status.state,
      stateNote: stateNote(status),
      message: extras.message,
      template: extras.templateNote ?? DASH,
      progress: `${progress}%`,
      total: count(c.total),
      queuedTotal: count(queuedRows(c)),
      toSend: count(toSend),
      queued: count(c.queued),
      sending: count(c.sending),
      confirming: count(c.confirming),
      held: count(c.held),
      sent: count(c.sent),
      delivered: count(c.delivered),
      read: count(c.read),
      failed: count(c.failed),
      unknown: count(c.unknown),
      rejected: count(c.rejected),
      skipped: count(c.skipped),
      cancelled: count(c.cancelled),
      expired: count(c.expired),
      rate: running && extras.numberRate !== undefined ? rate(extras.numberRate) : DASH,
      eta: status.state === 'completed' ? 'done' : timed && extras.etaSeconds !== undefined ? duration(extras.etaSeconds) : DASH,
      errors: errorsSummary(c.failed + c.unknown, extras.tally),
      createdAt: time(status.createdAt),
      startedAt: time(status.startedAt),
      finishedAt: time(status.finishedAt),
      window: extras.window === undefined ? DASH : `${describeWindow(extras.window)} of each recipient`,
      waiting: waiting === undefined ? DASH : count(waiting.waiting),
      nextWindow:
        waiting === undefined || waiting.waiting === 0
          ? DASH
          : waiting.nextWindowAt === undefined
            ? 'never (their zones are too far apart)'
            : time(waiting.nextWindowAt),
    },
  };
}

/** Why it is in its state, when that says more than the state's name. */
function stateNote(status: CampaignStatus): string {
  if (status.state === 'paused') return clip(status.pausedReason ?? '', 200);
  if (status.state === 'cancelled') return clip(status.cancelReason ?? '', 200);
  if (status.state === 'scheduled') return `starts ${time(status.startsAt)}`;
  if (status.ingestInterrupted) return 'file not read to the end';
  return '';
}

/** `131026 ×3 · 131047 ×1`: failed and unknown rows by code, most first. */
function errorsSummary(errorRows: number, tally: ErrorTally | undefined): string {
  if (errorRows === 0) return DASH;
  if (tally === undefined) return 'counting…';
  const codes = tally.codes.filter((e) => e.status === 'failed' || e.status === 'unknown');
  if (codes.length === 0) return DASH;
  const shown = codes.slice(0, LIST_CODES).map((e) => `${e.code} ×${count(e.rows)}`);
  const more = codes.length > LIST_CODES ? ` · +${codes.length - LIST_CODES} more` : '';
  return `${shown.join(' · ')}${more}${tally.complete ? '' : ' (sample)'}`;
}
