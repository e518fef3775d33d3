import { z } from 'zod';
import { sendPlanSchema, type SendPlan } from './send-plan.js';
import { sendWindowSchema } from './feed/send-window.js';
import { textPlanSchema, type TextPlan } from './text-plan.js';

/** What a campaign sends, fixed when it is created. Stored in Redis, so parsed on the way back. */
export const campaignDefinitionSchema = z
  .object({
    id: z.string(),
    /** `--name`, or its file's name: for people; absent in campaigns stored before names existed. */
    name: z.string().optional(),
    createdAt: z.number(),
    phoneNumberId: z.string(),
    /** `--priority` (absent = normal): a high campaign's rows are fed before normal ones, normal before low; equals share the number. */
    priority: z.enum(['high', 'normal', 'low']).optional(),
    /** `--at` (ms): nothing is fed before; absent = at once. */
    startsAt: z.number().optional(),
    /** `--start-deadline` (ms): not started by then (no worker ran), it is cancelled instead. */
    startDeadline: z.number().optional(),
    /** `--expires-at` / `--valid-for` (ms): rows not sent by then become `expired`. */
    expiresAt: z.number().optional(),
    /** `--window` / `--days`: rows are fed only inside this window of their recipient's local day. */
    window: sendWindowSchema.optional(),
    /**
     * `--allow-us-marketing`: a MARKETING template goes to US numbers too. Without it they are
     * skipped at ingest, and `campaign retry` never sends them again after a 131049.
     */
    allowUsMarketing: z.literal(true).optional(),
    /**
     * `--media-by id` (the default) for a template with media: each distinct media was checked and uploaded at ingest, and
     * rows send its media ID (the worker asks the store of uploads, and uploads again when an ID is missing or old); absent:
     * rows send the link.
     */
    mediaBy: z.literal('id').optional(),
    /** `--endpoint marketing-messages`: rows are posted to Meta's Marketing Messages API; absent: `/messages`. */
    endpoint: z.literal('marketing-messages').optional(),
    /** The template's category when the campaign was created (MARKETING, UTILITY, AUTHENTICATION). */
    category: z.string().optional(),
    /** A template campaign: the approved template and which column fills each variable. */
    plan: sendPlanSchema.optional(),
    /**
     * `--language-column`: each row's language picks the plan of its translation (each plan's
     * first slot reads the language); `plan` is the fallback's (`--language`), or the first's.
     * `fallback`: a row in a language the template lacks gets the fallback, else it is skipped.
     */
    languages: z.object({ column: z.string(), fallback: z.boolean(), plans: z.array(sendPlanSchema).min(1) }).optional(),
    /** `--text`: a free-form text campaign (absent in campaigns stored before text campaigns existed). */
    text: textPlanSchema.optional(),
    /** `campaign retarget`: the campaign whose rows this one was made from. */
    sourceCampaign: z.string().optional(),
    /** `--audience` (`--where`): the stored audience, and the filter, this campaign's rows were taken from. */
    audience: z.object({ name: z.string(), where: z.string().optional() }).optional(),
    /** `--require-consent`: MARKETING rows without an opt-in on record were skipped as NO_CONSENT. */
    requireConsent: z.literal(true).optional(),
    /** `--ignore-frequency-caps`: FREQUENCY_CAPS do not hold for its rows (their sends still count towards them). */
    ignoreFrequencyCaps: z.literal(true).optional(),
    /** `--retry-capped-after` (ms): a row Meta failed with 131049 is sent again once, this long after. */
    retryCappedAfterMs: z.number().optional(),
    /**
     * `--track-clicks`: the slot of the URL button (`button.1.url`) whose value is each row's click token (the row's values hold
     * the token there), and `--click-url-column`, the column each row's destination came from.
     */
    clicks: z.object({ slot: z.string(), column: z.string() }).optional(),
    /** `--test-to`: a test send to the team's own numbers: no duplicate window, no caps, not counted towards them. */
    test: z.literal(true).optional(),
    source: z.object({
      file: z.string(),
      phoneColumn: z.string(),
      /** ISO country for numbers written without a country code (`--default-country`). */
      defaultCountry: z.string().length(2).optional(),
      /** Collapse tabs, line breaks and runs of spaces in values instead of rejecting the row. */
      fixWhitespace: z.boolean().default(false),
      /** `--timezone-column`: an IANA zone per row (an empty cell: the number's). */
      timezoneColumn: z.string().optional(),
      /** `--default-timezone`: the zone of a row whose own zones are unknown or never share an open hour of the window. */
      defaultTimezone: z.string().optional(),
    }),
  })
  .refine((d) => (d.plan === undefined) !== (d.text === undefined), {
    message: 'a campaign sends either a template (plan) or a text, exactly one',
  });
export type CampaignDefinition = z.infer<typeof campaignDefinitionSchema>;

/** What a campaign sends: an approved template filled per row, or a free-form text filled per row. */
export type CampaignMessage = { kind: 'template'; plan: SendPlan } | { kind: 'text'; text: TextPlan };

export function campaignMessage(definition: CampaignDefinition): CampaignMessage {
  if (definition.text !== undefined) return { kind: 'text', text: definition.text };
  if (definition.plan !== undefined) return { kind: 'template', plan: definition.plan };
  throw new Error(`campaign ${definition.id} has neither a template plan nor a text`);
}

/** For the operator: `template order_update (en_US)` or `text "Hi {{name}}, your…"`. */
export function describeMessage(message: CampaignMessage): string {
  if (message.kind === 'template') return `template ${message.plan.name} (${message.plan.language})`;
  const flat = message.text.body.replace(/\s+/g, ' ').trim();
  return `text "${flat.length > 60 ? `${flat.slice(0, 59)}…` : flat}"`;
}

/** For people: `c20261125-1747-07ac19 "spring-promo"`, or the ID alone for a campaign without a name. */
export function campaignLabel(campaignId: string, name: string | null | undefined): string {
  return name === null || name === undefined ? campaignId : `${campaignId} "${name}"`;
}

/**
 * A row's life: `queued → sending → sent | failed`, or `rejected`/`skipped` at ingest.
 * `confirming`: its request got no answer (timeout, killed worker); it waits up to
 * CONFIRM_WINDOW_SECONDS for a status webhook, then is sent again once (when later sends got
 * their statuses, so it never reached Meta) or becomes `unknown`.
 * `held`: Meta accepted it but holds it for quality assessment (template pacing); a status
 * webhook makes it `sent` or `failed`, else after HELD_PATIENCE_HOURS it becomes `unknown`.
 * `unknown`: a send may have left but its answer was lost; never resent blindly. `cancelled`: the operator cancelled the campaign before it
 * was sent.
 * `expired`: the campaign's `--expires-at` passed before it was sent; never sent.
 * Stored rows keep a status as its place in this list (src/redis/lua/includes/row-codec.lua): a
 * new status goes at its end, and the Lua's list with it.
 */
export const ROW_STATUSES = [
  'queued',
  'sending',
  'confirming',
  'held',
  'sent',
  'failed',
  'rejected',
  'skipped',
  'unknown',
  'cancelled',
  'expired',
] as const;
export type RowStatus = (typeof ROW_STATUSES)[number];

export interface RowRecord {
  row: number;
  phone: string;
  status: RowStatus;
  wamid?: string;
  errorCode?: string;
  errorDetail?: string;
  attempts: number;
  /** Which job owns the row (SendJob.requeue); absent = its first job. */
  requeue?: number;
  /** Meta's status webhooks (ms): the first delivered (or read) and the first read seen. */
  deliveredAt?: number;
  readAt?: number;
  /** The user's quick-reply to this row's message (the button's payload), the earliest. */
  reply?: string;
  /**
   * The user's answer to the WhatsApp Flow this row's message opened (`nfm_reply.response_json`,
   * JSON text as Meta sent it, bounded: src/webhooks/flow-response.ts), the earliest.
   */
  flowResponse?: string;
  /** The `pricing` of its status webhooks: Meta's category, and whether Meta charges it. */
  pricing?: { category: string; billable: boolean };
  /** Its tracked link (`--track-clicks`): when it was first clicked (the ledger's clock, ms), and how often. */
  clickedAt?: number;
  clicks?: number;
}

/**
 * Rows by status, and `delivered` / `read`: rows Meta reported delivered (a read row counts
 * in both) and read, by status webhook. A failed row may have been delivered to one device.
 */
export type CampaignCounts = Record<RowStatus, number> & {
  total: number;
  delivered: number;
  read: number;
  /** Rows whose recipient replied to their message (a quick-reply or a Flow's answer), once each. */
  replied?: number;
  /** Rows whose tracked link was clicked, once each; absent for a campaign that does not track clicks (`--track-clicks`). */
  clicked?: number;
};

/**
 * `scheduled`: its `--at` start has not come (rows are read and checked, nothing is fed).
 * `paused`: no send starts until `campaign resume` (set by the operator, a halting error
 * code, or the error-spike brake). `cancelled`: stopped for good (by the operator, or its
 * `--start-deadline` passed before it started).
 */
export type CampaignState = 'scheduled' | 'ingesting' | 'running' | 'paused' | 'cancelled' | 'completed';

export interface CampaignStatus {
  id: string;
  state: CampaignState;
  /** `--priority`: how the feeder ranks it against the number's other campaigns. */
  priority: 'high' | 'normal' | 'low';
  counts: CampaignCounts;
  createdAt: number;
  finishedAt: number | undefined;
  /** Why it is paused, e.g. `190: Error validating access token…`; set only while paused. */
  pausedReason: string | undefined;
  pausedAt: number | undefined;
  /** `campaign send` was stopped before the end of its file: `send --campaign ID` continues it. */
  ingestInterrupted: boolean;
  /** When its personal data was purged (`campaign purge`, RETENTION_DAYS); its counts stay. */
  purgedAt: number | undefined;
  startsAt: number | undefined;
  startDeadline: number | undefined;
  expiresAt: number | undefined;
  /** When its first rows were fed to the workers. */
  startedAt: number | undefined;
  /** Why it was cancelled when not by the operator (START_DEADLINE: …). */
  cancelReason: string | undefined;
}
