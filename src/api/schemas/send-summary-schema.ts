import { z } from 'zod';
import { ROW_STATUSES } from '../../campaigns/campaign.js';
import { REJECTION_REASONS, type RejectionReason } from '../../campaigns/rejection-reasons.js';
import { CARD_CATEGORIES } from '../../pricing/rate-card.js';

const count = z.number().int().min(0);
const instant = z.string().nullable();
const REASONS = Object.keys(REJECTION_REASONS) as [RejectionReason, ...RejectionReason[]];

const planCostSchema = z.object({
  currency: z.string(),
  total: z.number(),
  byMarket: z.array(
    z.object({
      market: z.string().meta({ description: "ISO country, '' for numbers of no country." }),
      category: z.enum(CARD_CATEGORIES),
      messages: count,
      rate: z.number(),
      amount: z.number(),
    }),
  ),
});

const messagingLimitSchema = z.object({
  portfolio: z.string(),
  limit: z
    .union([count, z.literal('unlimited')])
    .nullable()
    .meta({ description: 'Unique users per 24 h; null when not known yet.' }),
  reached: count,
  queuedElsewhere: count,
  recipients: count,
  over: count.meta({ description: "Recipients past the portfolio's limit: they wait in the backlog." }),
  freesAt: instant,
});

/** What `campaign send --json` prints (summaryJson): what was read and queued, and the plan. */
export const sendSummarySchema = z
  .object({
    id: z.string().nullable().meta({ description: 'The campaign; null for a dry run.' }),
    name: z.string().nullable(),
    dryRun: z.boolean(),
    rows: count,
    valid: count,
    queued: count,
    rejected: count,
    skipped: count,
    byReason: z.partialRecord(z.enum(REASONS), count),
    byLanguage: z
      .record(z.string(), count)
      .meta({ description: 'With a language per row (`languageColumn`): rows to send by the language they go in; empty otherwise.' }),
    delimiter: z.string(),
    reopened: count.meta({ description: 'Rows an earlier run refused that are valid now (a continued campaign).' }),
    kept: count.meta({ description: 'Rows a continued campaign already had, left as they were.' }),
    keptByStatus: z.partialRecord(z.enum(ROW_STATUSES), count),
    optedOutBy: z.partialRecord(z.enum(['131050', 'keyword', 'user_preferences', 'operator']), count),
    marketingCapUntil: instant.meta({
      description: 'MARKETING_CAP_WAIT rows: when the last of their marketing caps (131049) ends; null when none was skipped.',
    }),
    frequencyCapped: count.meta({
      description:
        "FREQUENCY_CAPS: rows to send whose recipient is over a cap now, an estimate (the cap is checked at each row's claim, " +
        'where they are skipped as FREQUENCY_CAPPED); 0 without caps.',
    }),
    interruptedAtRow: count.nullable(),
    rejectsFile: z
      .string()
      .nullable()
      .meta({
        description:
          'The name of the rejects file (`<id>.rejects.csv`, served by GET /campaigns/{id}/rejects); null when no row was refused, ' +
          'and for a dry run (its refused rows are in the answer).',
      }),
    secondsAtSendRate: count.nullable(),
    plan: z.object({
      startsAt: z.string(),
      window: z.string().nullable(),
      finishesAt: instant.meta({ description: 'Null when some rows would never be sent (they expire, or their window never opens).' }),
      wouldExpire: count,
      neverOpen: count,
      timeZones: z.array(z.object({ zones: z.array(z.string()), rows: count, opensAt: instant })),
      messagingLimit: messagingLimitSchema.nullable().meta({ description: 'Null for a text campaign.' }),
      cost: planCostSchema.nullable(),
      costReason: z.string().nullable(),
      rateCard: z.string().nullable().meta({ description: "The rate card's file name (RATE_CARD_FILE); null when none is loaded." }),
      maxCost: z.object({ amount: z.number(), refused: z.string().nullable() }).optional(),
    }),
  })
  .meta({ id: 'SendSummary' });

/** A refused row of a dry run, as the rejects file has it. */
export const rejectedRowSchema = z.object({
  row: count.meta({ description: 'The data row (1 = the first row after the header).' }),
  phone: z.string().optional(),
  reason: z.enum(REASONS),
  column: z.string().optional(),
  detail: z.string(),
});

/** A dry run's answer: the summary and the first refused rows. */
export const dryRunSummarySchema = sendSummarySchema
  .extend({
    rejects: z.array(rejectedRowSchema).meta({ description: 'The first 20 refused (rejected or skipped) rows.' }),
    rejectsTotal: count.meta({ description: 'How many rows were refused in all: a dry run writes no rejects file.' }),
  })
  .meta({ id: 'SendPlan' });
