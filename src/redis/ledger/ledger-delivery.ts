import type { DeliveryLedger, InboundUpdate, PreferenceUpdate, StatusOutcome, StatusUpdate } from '../../campaigns/ledger.js';
import { SERVICE_WINDOW_MS } from '../../campaigns/ledger.js';
import { numberScope } from '../key-scope.js';
import { perNumber, type LedgerContext } from './ledger-context.js';
import { campaignLedgerKeys, serviceWindowKey, wamidsKey } from './ledger-keys.js';
import { decodeStoredRow } from './row-codec.js';
import { wamidKeepArgs } from './wamid-compact.js';
import { storedRow } from './row-chunks.js';
import { spreadByPortfolio, spreadFromNumber } from './ledger-optouts.js';
import { spreadCapsFromNumber } from './ledger-marketing-caps.js';
import { MARKETING_CAP_WAIT_MS } from '../../campaigns/marketing-cap-wait.js';

/** Meta's code for a recipient who stopped marketing messages from the business. */
const OPTED_OUT_CODE = '131050';
/** Status outcomes whose row apply-statuses.lua found (and so recorded a 131050's opt-out for). */
const MATCHED = new Set(['applied', 'same']);

/**
 * What Meta's webhooks change (apply-*.lua): statuses on rows, users' messages and the
 * customer-service windows they open, `user_preferences`; the opt-outs and marketing caps a
 * webhook records on its number go on to the rest of the portfolio (ledger-optouts.ts,
 * ledger-marketing-caps.ts).
 */
export class LedgerDelivery implements Omit<DeliveryLedger, 'applyTemplateStatus' | 'recordTemplateInfo'> {
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
      const statuses: (string | number)[] = [];
      for (const u of group) {
        const pricing = u.pricing === undefined ? '' : `${u.pricing.category}|${u.pricing.billable ? 1 : 0}|${u.pricing.market}`;
        statuses.push(
          u.wamid,
          u.kind,
          u.at,
          u.callbackData ?? '',
          u.code ?? '',
          u.detail ?? '',
          u.phoneNumberId,
          pricing,
          ...wamidKeepArgs(u.wamid),
        );
      }
      const flat = await redis.cwApplyStatuses(
        wamidsKey(prefix, number),
        numberScope(prefix, number),
        clock.arg(),
        brake.window,
        brake.failureShare,
        MARKETING_CAP_WAIT_MS,
        ...statuses,
      );
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
      const messages: (string | number)[] = [];
      for (const u of group) {
        messages.push(u.phoneNumberId, u.waId, u.at, u.replyTo ?? '', u.reply ?? '', u.flowResponse ?? '', u.optOut ? '1' : '0');
      }
      const answered = await redis.cwApplyInbound(
        wamidsKey(prefix, number),
        numberScope(prefix, number),
        clock.arg(),
        SERVICE_WINDOW_MS,
        ...messages,
      );
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
      const raw = await storedRow(redis, campaignLedgerKeys(prefix, number, match[1] ?? '').rows, Number(match[2]));
      const phone = (raw === null ? undefined : decodeStoredRow(raw))?.p;
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
}
