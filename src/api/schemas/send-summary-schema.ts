import { z } from 'zod';

const count = z.number().int().min(0);
const instant = z.string().nullable();
const counts = z.record(z.string(), count);

/** The plan's cost by the rate card (src/pricing/cost-estimate.ts PlanCost). */
const planCostSchema = z.object({
  currency: z.string(),
  total: z.number(),
  byMarket: z.array(z.object({ market: z.string(), category: z.string(), messages: count, rate: z.number(), amount: z.number() })),
});

/** A campaign as `campaign send --json` (and `campaign retarget --json`) prints it: summaryJson in src/cli/format.ts. */
export const sendSummarySchema = z
  .object({
    id: z.string().nullable().meta({ description: 'The campaign ID; null for a dry run.' }),
    name: z.string().nullable(),
    dryRun: z.boolean(),
    rows: count,
    valid: count,
    queued: count,
    rejected: count,
    skipped: count,
    byReason: counts.meta({ description: 'Rejected and skipped rows by reason (docs/errors.md, row rejection reasons).' }),
    delimiter: z.string(),
    reopened: count,
    kept: count,
    keptByStatus: counts,
    optedOutBy: counts,
    interruptedAtRow: z.number().int().nullable(),
    rejectsFile: z.string().nullable().meta({ description: 'Where the rejected and skipped rows were written (on the server).' }),
    secondsAtSendRate: z.number().int().nullable(),
    plan: z.object({
      startsAt: z.string(),
      window: z.string().nullable(),
      finishesAt: instant,
      wouldExpire: count,
      neverOpen: count,
      timeZones: z.array(z.object({ zones: z.array(z.string()), rows: count, opensAt: instant })),
      messagingLimit: z
        .object({
          portfolio: z.string(),
          limit: z.union([z.number(), z.literal('unlimited')]).nullable(),
          reached: count,
          queuedElsewhere: count,
          recipients: count,
          over: count,
          freesAt: instant,
        })
        .nullable(),
      cost: planCostSchema.nullable(),
      costReason: z.string().nullable(),
      rateCard: z.string().nullable(),
      maxCost: z.object({ amount: z.number(), refused: z.string().nullable() }).optional(),
    }),
  })
  .meta({ id: 'SendSummary' });
