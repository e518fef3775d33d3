import { z } from 'zod';
import { safeJson } from '../../cloud-api/safe-json.js';
import type { PlanCost } from '../../pricing/cost-estimate.js';
import type { LedgerContext } from './ledger-context.js';

/**
 * The campaign hash field the plan's cost is kept in (JSON); `billed:<market>:<category>`
 * fields count billable rows (apply-statuses.lua).
 */
const ESTIMATE_FIELD = 'costEstimate';
const BILLED_PREFIX = 'billed:';

const planCostSchema = z.object({
  currency: z.string(),
  total: z.number(),
  byMarket: z.array(z.object({ market: z.string(), category: z.string(), messages: z.number(), rate: z.number(), amount: z.number() })),
});

/** A campaign's cost as recorded: the plan's estimate, and its billable rows by market and category. */
export interface RecordedCosts {
  estimate: PlanCost | undefined;
  billed: { market: string; category: string; messages: number }[];
}

/** What a campaign costs: the estimate `send` made, and what Meta's `pricing` said was billable. */
export class LedgerCosts {
  constructor(private readonly context: LedgerContext) {}

  /** The plan's estimate of the campaign's first send; a continued send (`--campaign ID`) leaves it as it was. */
  async recordCostEstimate(campaignId: string, cost: PlanCost): Promise<void> {
    const keys = await this.context.keys(campaignId);
    await this.context.redis.hsetnx(keys.campaign, ESTIMATE_FIELD, JSON.stringify(cost));
  }

  async recordedCosts(campaignId: string): Promise<RecordedCosts> {
    const keys = await this.context.keys(campaignId);
    const fields = await this.context.redis.hgetall(keys.campaign);
    const parsed = planCostSchema.safeParse(safeJson(fields[ESTIMATE_FIELD] ?? ''));
    const billed: RecordedCosts['billed'] = [];
    for (const [field, value] of Object.entries(fields)) {
      if (!field.startsWith(BILLED_PREFIX)) continue;
      // The market may hold spaces and '&', never ':'; the category is last.
      const rest = field.slice(BILLED_PREFIX.length);
      const cut = rest.lastIndexOf(':');
      billed.push({ market: rest.slice(0, cut), category: rest.slice(cut + 1), messages: Number(value) });
    }
    return { estimate: parsed.success ? (parsed.data as PlanCost) : undefined, billed };
  }
}
