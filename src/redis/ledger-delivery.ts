import { z } from 'zod';
import { safeJson } from '../cloud-api/graph-answers.js';
import type {
  DeliveryLedger,
  InboundUpdate,
  OptOutSource,
  PreferenceUpdate,
  SendLedger,
  StatusOutcome,
  StatusUpdate,
} from '../campaigns/ledger.js';
import { SERVICE_WINDOW_MS } from '../campaigns/ledger.js';
import { numberScope } from './key-scope.js';
import { perNumber, type LedgerContext } from './ledger-context.js';
import { optOutsKey, serviceWindowKey, wamidsKey } from './ledger-keys.js';

const optOutSourceSchema = z.object({
  campaignId: z.string(),
  row: z.number(),
  at: z.number(),
  via: z.enum(['keyword', 'user_preferences', 'operator']).optional(),
});

/** What Meta's webhooks change (apply-*.lua), the customer-service windows they open, a number's opt-outs. */
export class LedgerDelivery
  implements Omit<DeliveryLedger, 'applyTemplateStatus'>, Pick<SendLedger, 'recordOptOut' | 'addOptOut' | 'removeOptOut'>
{
  constructor(private readonly context: LedgerContext) {}

  // Webhooks name the phone number they are for; each number's events go in one script call
  // in its own slot (a webhook batch may mix numbers), answers back in the caller's order.

  async applyStatuses(updates: readonly StatusUpdate[]): Promise<StatusOutcome[]> {
    const { redis, prefix, clock } = this.context;
    return perNumber(updates, async (number, group) => {
      const args: (string | number)[] = [numberScope(prefix, number), clock.arg()];
      for (const u of group) {
        const pricing = u.pricing === undefined ? '' : `${u.pricing.category}|${u.pricing.billable ? 1 : 0}|${u.pricing.market}`;
        args.push(u.wamid, u.kind, u.at, u.callbackData ?? '', u.code ?? '', u.detail ?? '', u.phoneNumberId, pricing);
      }
      const flat = await redis.cwApplyStatuses(wamidsKey(prefix, number), ...args);
      const outcomes: StatusOutcome[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const flags = Number(flat[i + 1]);
        outcomes.push({
          outcome: String(flat[i]) as StatusOutcome['outcome'],
          completedCampaign: (flags & 1) === 1,
          ...((flags & 2) === 2 ? { billed: true } : {}),
        });
      }
      return outcomes;
    });
  }

  async applyInbound(updates: readonly InboundUpdate[]): Promise<{ answeredRow: boolean }[]> {
    const { redis, prefix, clock } = this.context;
    return perNumber(updates, async (number, group) => {
      const args: (string | number)[] = [numberScope(prefix, number), clock.arg(), SERVICE_WINDOW_MS];
      for (const u of group) args.push(u.phoneNumberId, u.waId, u.at, u.replyTo ?? '', u.reply ?? '', u.optOut ? '1' : '0');
      const answered = await redis.cwApplyInbound(wamidsKey(prefix, number), ...args);
      return answered.map((n) => ({ answeredRow: Number(n) === 1 }));
    });
  }

  async applyPreferences(updates: readonly PreferenceUpdate[]): Promise<void> {
    const { redis, prefix } = this.context;
    await perNumber(updates, async (number, group) => {
      const args: (string | number)[] = [numberScope(prefix, number)];
      for (const u of group) args.push(u.phoneNumberId, u.waId, u.value, u.at);
      await redis.cwApplyPreferences(optOutsKey(prefix, number), ...args);
      return group.map(() => undefined);
    });
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
    return (await this.context.redis.hsetnx(optOutsKey(this.context.prefix, phoneNumberId), phone, JSON.stringify(source))) === 1;
  }

  async removeOptOut(phoneNumberId: string, phone: string): Promise<boolean> {
    return (await this.context.redis.hdel(optOutsKey(this.context.prefix, phoneNumberId), phone)) === 1;
  }

  async recordOptOut(phoneNumberId: string, phone: string, source: { campaignId: string; row: number }): Promise<void> {
    await this.context.redis.hset(
      optOutsKey(this.context.prefix, phoneNumberId),
      phone,
      JSON.stringify({ ...source, at: await this.context.clock.now() }),
    );
  }

  async optOuts(phoneNumberId: string): Promise<Map<string, OptOutSource>> {
    const found = new Map<string, OptOutSource>();
    let cursor = '0';
    do {
      const [next, flat] = await this.context.redis.hscan(optOutsKey(this.context.prefix, phoneNumberId), cursor, 'COUNT', 1000);
      cursor = next;
      for (let i = 0; i < flat.length; i += 2) {
        const parsed = optOutSourceSchema.safeParse(safeJson(flat[i + 1] ?? ''));
        // An entry this version cannot read still means the recipient opted out.
        found.set(flat[i] ?? '', parsed.success ? parsed.data : { campaignId: '?', row: 0, at: 0 });
      }
    } while (cursor !== '0');
    return found;
  }
}
