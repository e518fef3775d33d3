import { z } from 'zod';
import { safeJson } from '../../cloud-api/safe-json.js';
import type {
  DeliveryLedger,
  InboundUpdate,
  OptOutSource,
  PreferenceUpdate,
  SendLedger,
  StatusOutcome,
  StatusUpdate,
} from '../../campaigns/ledger.js';
import { SERVICE_WINDOW_MS } from '../../campaigns/ledger.js';
import { numberScope } from '../key-scope.js';
import { perNumber, type LedgerContext } from './ledger-context.js';
import { campaignLedgerKeys, serviceWindowKey, wamidsKey } from './ledger-keys.js';
import { optOutEntries, spreadByPortfolio, spreadFromNumber, spreadOptOuts, type OptOutEvent } from './ledger-optouts.js';
import { spreadCapsFromNumber } from './ledger-marketing-caps.js';
import { MARKETING_CAP_WAIT_MS } from '../../campaigns/marketing-cap-wait.js';
import { portfolioOf } from '../../portfolios/portfolios.js';

/** Meta's code for a recipient who stopped marketing messages from the business. */
const OPTED_OUT_CODE = '131050';
/** Status outcomes whose row apply-statuses.lua found (and so recorded a 131050's opt-out for). */
const MATCHED = new Set(['applied', 'same']);

const optOutSourceSchema = z.object({
  campaignId: z.string(),
  row: z.number(),
  at: z.number(),
  via: z.enum(['keyword', 'user_preferences', 'operator']).optional(),
});

/** What Meta's webhooks change (apply-*.lua), the customer-service windows they open, the opt-outs (ledger-optouts.ts). */
export class LedgerDelivery
  implements
    Omit<DeliveryLedger, 'applyTemplateStatus' | 'recordTemplateInfo'>,
    Pick<SendLedger, 'recordOptOut' | 'addOptOut' | 'removeOptOut'>
{
  constructor(private readonly context: LedgerContext) {}

  // Webhooks name the phone number they are for; each number's events go in one script call
  // in its own slot (a webhook batch may mix numbers), answers back in the caller's order.
  // With REDIS_WAIT_REPLICAS, each number's writes are on its replicas before the call
  // resolves, so `serve` answers Meta only for webhooks a failover cannot take back: Meta does
  // not send a webhook again once answered, and a status lost together with its row's answer
  // (the settle) would leave the in-doubt rule to send the row again.

  async applyStatuses(updates: readonly StatusUpdate[]): Promise<StatusOutcome[]> {
    const { redis, prefix, clock, brake } = this.context;
    return perNumber(updates, async (number, group) => {
      const args: (string | number)[] = [numberScope(prefix, number), clock.arg(), brake.window, brake.failureShare, MARKETING_CAP_WAIT_MS];
      for (const u of group) {
        const pricing = u.pricing === undefined ? '' : `${u.pricing.category}|${u.pricing.billable ? 1 : 0}|${u.pricing.market}`;
        args.push(u.wamid, u.kind, u.at, u.callbackData ?? '', u.code ?? '', u.detail ?? '', u.phoneNumberId, pricing);
      }
      const flat = await redis.cwApplyStatuses(wamidsKey(prefix, number), ...args);
      const outcomes: StatusOutcome[] = [];
      const capped: StatusUpdate[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const flags = Number(flat[i + 1]);
        const update = group[i / 2];
        if ((flags & 4) === 4 && update !== undefined) capped.push(update);
        outcomes.push({
          outcome: String(flat[i]) as StatusOutcome['outcome'],
          completedCampaign: (flags & 1) === 1,
          ...((flags & 2) === 2 ? { billed: true } : {}),
        });
      }
      // The script recorded 131050's opt-out on this number; the rest of its portfolio follows.
      const optedOut = group.filter((u, i) => u.kind === 'failed' && u.code === OPTED_OUT_CODE && MATCHED.has(outcomes[i]?.outcome ?? ''));
      await spreadFromNumber(this.context, number, await this.#recipientsOf(number, optedOut));
      // The script recorded 131049's marketing cap on this number; the rest of its portfolio follows.
      await spreadCapsFromNumber(this.context, number, await this.#recipientsOf(number, capped));
      await this.context.replicated(wamidsKey(prefix, number));
      return outcomes;
    });
  }

  async applyInbound(updates: readonly InboundUpdate[]): Promise<{ answeredRow: boolean }[]> {
    const { redis, prefix, clock } = this.context;
    return perNumber(updates, async (number, group) => {
      const args: (string | number)[] = [numberScope(prefix, number), clock.arg(), SERVICE_WINDOW_MS];
      for (const u of group) args.push(u.phoneNumberId, u.waId, u.at, u.replyTo ?? '', u.reply ?? '', u.optOut ? '1' : '0');
      const answered = await redis.cwApplyInbound(wamidsKey(prefix, number), ...args);
      // The script recorded a keyword's opt-out on this number; the rest of its portfolio follows.
      await spreadFromNumber(
        this.context,
        number,
        group.filter((u) => u.optOut).map((u) => `+${u.waId}`),
      );
      await this.context.replicated(wamidsKey(prefix, number));
      return answered.map((n) => ({ answeredRow: Number(n) === 1 }));
    });
  }

  async applyPreferences(updates: readonly PreferenceUpdate[]): Promise<void> {
    // The newest stop/resume per user wins in every copy of the portfolio's opt-outs (apply-optouts.lua).
    await spreadByPortfolio(this.context, updates, (u) => ({
      phone: `+${u.waId}`,
      action: u.value,
      at: u.at,
      source: JSON.stringify({ campaignId: '', row: 0, at: u.at, via: 'user_preferences' }),
    }));
  }

  /** The recipients of the rows the statuses are about (by message ID, else callback data), as apply-statuses.lua finds them. */
  async #recipientsOf(number: string, updates: readonly StatusUpdate[]): Promise<string[]> {
    if (updates.length === 0) return [];
    const { redis, prefix } = this.context;
    const where = await redis.cwWhereWamids(wamidsKey(prefix, number), ...updates.map((u) => u.wamid));
    const phones: string[] = [];
    for (const [i, u] of updates.entries()) {
      const match = /^(.+)\/(\d+)$/.exec(where[i] || (u.callbackData ?? ''));
      if (match === null) continue;
      const json = await redis.hget(campaignLedgerKeys(prefix, number, match[1] ?? '').rows, match[2] ?? '');
      const phone = (safeJson(json ?? '') as { p?: unknown } | undefined)?.p;
      if (typeof phone === 'string') phones.push(phone);
    }
    return phones;
  }

  async serviceWindowsOpen(phoneNumberId: string, waIds: readonly string[]): Promise<boolean[]> {
    if (waIds.length === 0) return [];
    const { redis, prefix, clock } = this.context;
    // One MGET for the lot: a window is open while the closing time its key holds is ahead
    // on the ledger's clock (apply-inbound.lua; the key also expires then).
    const [closes, now] = await Promise.all([
      redis.mget(...waIds.map((waId) => serviceWindowKey(prefix, phoneNumberId, waId))),
      clock.now(),
    ]);
    return closes.map((value) => value !== null && Number(value) > now);
  }

  async addOptOut(phoneNumberId: string, phone: string): Promise<boolean> {
    const source: OptOutSource = { campaignId: '', row: 0, at: await this.context.clock.now(), via: 'operator' };
    return this.#spread(phoneNumberId, { phone, action: 'add', at: source.at, source: JSON.stringify(source) });
  }

  async removeOptOut(phoneNumberId: string, phone: string): Promise<boolean> {
    return this.#spread(phoneNumberId, { phone, action: 'remove', at: 0 });
  }

  async recordOptOut(phoneNumberId: string, phone: string, source: { campaignId: string; row: number }): Promise<void> {
    const at = await this.context.clock.now();
    await this.#spread(phoneNumberId, { phone, action: 'add', at, source: JSON.stringify({ ...source, at }) });
  }

  /** The opt-outs that hold for a number: its portfolio's. */
  async optOuts(phoneNumberId: string): Promise<Map<string, OptOutSource>> {
    return sourcesOf(await optOutEntries(this.context, { phoneNumberId }));
  }

  /** `campaign optouts list --portfolio`: the portfolio's record. */
  async optOutsOfPortfolio(portfolio: string): Promise<Map<string, OptOutSource>> {
    return sourcesOf(await optOutEntries(this.context, { portfolio }));
  }

  /** `campaign optouts add --portfolio`: the operator opts a recipient out on every number of the portfolio (false: already). */
  async addPortfolioOptOut(portfolio: string, phone: string): Promise<boolean> {
    const source: OptOutSource = { campaignId: '', row: 0, at: await this.context.clock.now(), via: 'operator' };
    const [changed] = await spreadOptOuts(this.context, portfolio, [
      { phone, action: 'add', at: source.at, source: JSON.stringify(source) },
    ]);
    return changed === true;
  }

  /** `campaign optouts remove --portfolio`: true if the recipient was opted out anywhere in the portfolio and no longer is. */
  async removePortfolioOptOut(portfolio: string, phone: string): Promise<boolean> {
    const [changed] = await spreadOptOuts(this.context, portfolio, [{ phone, action: 'remove', at: 0 }]);
    return changed === true;
  }

  /** One opt-out or lift for the whole portfolio of the number: true if it changed anything. */
  async #spread(phoneNumberId: string, event: OptOutEvent): Promise<boolean> {
    const portfolio = portfolioOf(this.context.portfolios, phoneNumberId);
    const [changed] = await spreadOptOuts(this.context, portfolio, [event], [phoneNumberId]);
    return changed === true;
  }
}

/** Stored opt-outs (phone → source JSON) as sources. */
function sourcesOf(entries: ReadonlyMap<string, string>): Map<string, OptOutSource> {
  const found = new Map<string, OptOutSource>();
  for (const [phone, json] of entries) {
    const parsed = optOutSourceSchema.safeParse(safeJson(json));
    // An entry this version cannot read still means the recipient opted out.
    found.set(phone, parsed.success ? parsed.data : { campaignId: '?', row: 0, at: 0 });
  }
  return found;
}
