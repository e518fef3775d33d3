import type {
  SendLedger,
  DeliveryLedger,
  TemplateInfoUpdate,
  TemplateStatusOutcome,
  TemplateStatusUpdate,
} from '../../campaigns/ledger.js';
import type { LedgerContext } from './ledger-context.js';
import { campaignIndexKey } from './ledger-keys.js';
import { brakeKeys } from './script-keys.js';
import { RedisTemplateInfo } from '../templates/redis-template-info.js';

/**
 * A template's status changes the campaigns that send it (template-status.lua). A template
 * webhook names the template, not a campaign: every campaign in the index is asked (campaigns are
 * few; finished ones answer at once), and each script decides from the campaign's own definition
 * whether it sends that template in that language.
 */
export class LedgerTemplates
  implements Pick<DeliveryLedger, 'applyTemplateStatus' | 'recordTemplateInfo'>, Pick<SendLedger, 'templateStatusOf'>
{
  constructor(private readonly context: LedgerContext) {}

  /**
   * Kept for the registry and the page (src/redis/templates/redis-template-info.ts); a category change is
   * also given to the unfinished campaigns that send the template (template-category.lua).
   */
  async recordTemplateInfo(updates: readonly TemplateInfoUpdate[]): Promise<void> {
    await new RedisTemplateInfo(this.context.redis, this.context.prefix).record(updates);
    const moved = updates.filter((u) => u.kind === 'category');
    if (moved.length === 0) return;
    // Campaigns already reading their rows or sending follow the category Meta has now.
    const ids = await this.context.redis.zrange(campaignIndexKey(this.context.prefix), 0, -1);
    for (const update of moved) {
      await Promise.all(
        ids.map(async (id) => {
          const keys = await this.context.keys(id);
          await this.context.redis.cwTemplateCategory(keys.campaign, update.name, update.language, update.value);
        }),
      );
    }
  }

  async applyTemplateStatus(update: TemplateStatusUpdate): Promise<TemplateStatusOutcome[]> {
    const ids = await this.context.redis.zrange(campaignIndexKey(this.context.prefix), 0, -1);
    const outcomes = await Promise.all(ids.map((id) => this.templateStatusOf(id, update)));
    return outcomes.filter((o) => o.outcome !== 'other-template' && o.outcome !== 'missing');
  }

  async templateStatusOf(campaignId: string, update: TemplateStatusUpdate): Promise<TemplateStatusOutcome> {
    const { phoneNumberId } = await this.context.keys(campaignId);
    const outcome = await this.context.redis.cwTemplateStatus(
      ...brakeKeys(this.context.prefix, phoneNumberId, campaignId),
      update.event,
      update.name,
      update.language,
      update.detail.slice(0, 500),
      this.context.clock.arg(),
    );
    return { campaignId, outcome: outcome as TemplateStatusOutcome['outcome'] };
  }
}
