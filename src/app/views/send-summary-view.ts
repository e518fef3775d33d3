import type { SendOutcome } from '../../campaigns/ingest/producer.js';
import type { SendEstimate } from '../../campaigns/feed/send-estimate.js';
import type { MessagingLimitCheck } from '../../campaigns/ingest/messaging-limit-check.js';

/** Seconds the queued rows take at the rate (undefined when pacing is off). */
export function secondsAt(rows: number, rate: number): number | undefined {
  return rate > 0 ? Math.ceil(rows / rate) : undefined;
}

/** What `campaign send --json` prints (the API's SendSummary): what was read and queued, and the plan. */
export function summaryJson(summary: SendOutcome, rate: number): Record<string, unknown> {
  return {
    id: summary.dryRun ? null : summary.id,
    name: summary.name ?? null,
    dryRun: summary.dryRun,
    rows: summary.rows,
    valid: summary.valid,
    queued: summary.dryRun ? 0 : summary.queued,
    rejected: summary.rejected,
    skipped: summary.skipped,
    byReason: summary.byReason,
    byLanguage: summary.byLanguage,
    delimiter: summary.delimiter,
    reopened: summary.reopened,
    kept: summary.kept,
    keptByStatus: summary.keptByStatus,
    optedOutBy: summary.optedOutBy,
    marketingCapUntil: iso(summary.marketingCapUntil),
    frequencyCapped: summary.frequencyCapped,
    interruptedAtRow: summary.interruptedAtRow ?? null,
    rejectsFile: summary.rejectsFile ?? null,
    secondsAtSendRate: secondsAt(summary.valid, rate) ?? null,
    plan: {
      ...planJson(summary.estimate),
      messagingLimit: limitJson(summary.messagingLimit),
      ...costJson(summary),
    },
  };
}

/** The plan's cost: `cost` (null when no card covers it), `costReason`, and `maxCost` when given. */
function costJson(summary: SendOutcome): Record<string, unknown> {
  return {
    cost: summary.cost,
    costReason: summary.costReason,
    rateCard: summary.rateCard,
    ...(summary.maxCost === undefined ? {} : { maxCost: summary.maxCost }),
  };
}

/** The messaging limit against the campaign: null for a text campaign; `limit` null when not known, "unlimited" when none. */
function limitJson(check: MessagingLimitCheck | undefined): Record<string, unknown> | null {
  if (check === undefined) return null;
  return {
    portfolio: check.portfolio,
    limit: check.limit ?? null,
    reached: check.reached,
    queuedElsewhere: check.queuedElsewhere,
    recipients: check.recipients,
    over: check.over,
    freesAt: iso(check.freesAt),
  };
}

/** The plan: start, estimated finish (null: some rows would never be sent), rows per time zone, rows that would expire. */
function planJson(estimate: SendEstimate): Record<string, unknown> {
  return {
    startsAt: new Date(estimate.startsAt).toISOString(),
    window: estimate.window ?? null,
    finishesAt: iso(estimate.finishesAt),
    wouldExpire: estimate.wouldExpire,
    neverOpen: estimate.neverOpen,
    timeZones: estimate.lanes.map((lane) => ({ zones: lane.zones, rows: lane.rows, opensAt: iso(lane.opensAt) })),
  };
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());
