import { z } from 'zod';
import { campaignMessage, type CampaignDefinition, type CampaignState, type CampaignStatus } from '../../campaigns/campaign.js';
import type { WindowStatus } from '../../campaigns/report/window-status.js';

const instant = z.string().nullable();
const count = z.number().int().min(0);

/**
 * A campaign as `campaign status --json` prints it and the HTTP API answers it (`Campaign` in
 * its OpenAPI document): its state and counts, flat. The one definition of both: the type is
 * derived from it and the document shows it, so the two cannot drift apart. Its fields are
 * explained in comments, not `.meta()`: a description would change the published document.
 */
export const statusViewSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    // `campaign retarget`: the campaign whose rows it took; null for any other.
    sourceCampaign: z.string().nullable(),
    // `send --audience`: the audience its rows were taken from, and the `--where` filter (null: all of it); null for a file.
    audience: z.object({ name: z.string(), where: z.string().nullable() }).nullable(),
    // `send --test-to`: a test send to the team's own numbers.
    test: z.boolean(),
    state: z.enum(['scheduled', 'ingesting', 'running', 'paused', 'cancelled', 'completed']),
    // What it sends: an approved `template`, or a free-form `text` (`--text`); null when its definition was not read.
    kind: z.enum(['template', 'text']).nullable(),
    // The template's name and language; null for a text campaign.
    template: z.string().nullable(),
    language: z.string().nullable(),
    priority: z.enum(['high', 'normal', 'low']),
    total: count,
    // Waiting or in flight.
    queued: count,
    sending: count,
    sent: count,
    failed: count,
    rejected: count,
    skipped: count,
    // In doubt: their request got no answer; they wait for a status webhook (CONFIRM_WINDOW_SECONDS).
    confirming: count,
    // Accepted but held by Meta for quality assessment; a status webhook settles them (HELD_PATIENCE_HOURS).
    held: count,
    unknown: count,
    cancelled: count,
    // Rows Meta reported delivered by status webhook (a read row counts here too), and read.
    delivered: count,
    read: count,
    // Rows whose recipient replied (a quick-reply or a Flow's answer), and rows whose tracked link was clicked, once each;
    // `clicked` is null for a campaign that does not track clicks (`send --track-clicks`).
    replied: count,
    clicked: count.nullable(),
    createdAt: z.string(),
    finishedAt: instant,
    // Why no send starts (operator, a code such as `190: …`, or `ERROR_SPIKE: …`); null unless paused.
    pausedReason: z.string().nullable(),
    pausedAt: instant,
    // The file was not read to the end (Ctrl-C): `send FILE --campaign ID` continues it.
    ingestInterrupted: z.boolean(),
    // When its rows (phone numbers, values) were purged; null while they are kept.
    purgedAt: instant,
    expired: count,
    // `--at`: nothing is fed before (state `scheduled` until then).
    startsAt: instant,
    startDeadline: instant,
    expiresAt: instant,
    // When its first rows were fed to the workers.
    startedAt: instant,
    // Why it was cancelled when not by the operator (`START_DEADLINE: …`).
    cancelReason: z.string().nullable(),
    // `--window`/`--days` as given; null without a send window.
    window: z.string().nullable(),
    // Rows whose recipients' window is closed now (they wait, they do not fail); null without a window.
    waiting: count.nullable(),
    // When the next of those windows opens; null when none waits.
    nextWindowAt: instant,
    // `status` and `status --watch` (not `list`): what it costs by the rate card (src/pricing/recorded-cost.ts).
    cost: z
      .object({
        currency: z.string(),
        estimated: z.number().nullable(),
        billable: count,
        amount: z.number().nullable(),
        missing: z.array(z.string()).optional(),
      })
      .optional(),
  })
  .meta({ id: 'Campaign' });

export type StatusView = z.output<typeof statusViewSchema>;

// The schema's states are the ledger's: a state added to one and not the other fails to compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameStates: Same<StatusView['state'], CampaignState> = true;
void sameStates;

/** Status as `campaign status --json` prints it (without `cost`, which statusViewOf adds). */
export function statusJson(status: CampaignStatus, windowed?: WindowStatus, definition?: CampaignDefinition): StatusView {
  const { counts } = status;
  const message = definition === undefined ? undefined : campaignMessage(definition);
  return {
    id: status.id,
    name: definition?.name ?? null,
    sourceCampaign: definition?.sourceCampaign ?? null,
    audience: definition?.audience === undefined ? null : { name: definition.audience.name, where: definition.audience.where ?? null },
    test: definition?.test === true,
    state: status.state,
    kind: message?.kind ?? null,
    template: message?.kind === 'template' ? message.plan.name : null,
    language: message?.kind === 'template' ? message.plan.language : null,
    priority: status.priority,
    total: counts.total,
    queued: counts.queued + counts.sending,
    sending: counts.sending,
    sent: counts.sent,
    failed: counts.failed,
    rejected: counts.rejected,
    skipped: counts.skipped,
    confirming: counts.confirming,
    held: counts.held,
    unknown: counts.unknown,
    cancelled: counts.cancelled,
    delivered: counts.delivered,
    read: counts.read,
    replied: counts.replied ?? 0,
    clicked: counts.clicked ?? null,
    createdAt: new Date(status.createdAt).toISOString(),
    finishedAt: iso(status.finishedAt),
    pausedReason: status.pausedReason ?? null,
    pausedAt: iso(status.pausedAt),
    ingestInterrupted: status.ingestInterrupted,
    purgedAt: iso(status.purgedAt),
    expired: counts.expired,
    startsAt: iso(status.startsAt),
    startDeadline: iso(status.startDeadline),
    expiresAt: iso(status.expiresAt),
    startedAt: iso(status.startedAt),
    cancelReason: status.cancelReason ?? null,
    window: windowed?.window ?? null,
    waiting: windowed?.waiting ?? null,
    nextWindowAt: iso(windowed?.nextWindowAt),
  };
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());
