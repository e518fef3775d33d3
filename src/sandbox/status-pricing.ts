import type { AcceptedMessage } from './accepted-log.js';

/**
 * The `pricing` (and, before v24, `conversation`) fields of a message's statuses, as Meta
 * sends them under per-message pricing (reference cloud-api-2026.md §1, §5):
 *   - v24 and later: no `conversation`, and `pricing` on one status of the message only. Meta
 *     says it is on sent or delivered; the sandbox puts it on `delivered` by default, where the
 *     charge is made, and `pricingOn: 'sent'` moves it, so a client must take it from either;
 *   - before v24: `conversation` and `pricing` on both sent and delivered.
 * A message reported `failed` carries none: Meta charges only delivered messages.
 * `pricing.category` is the template's (`marketing_lite` through the Marketing Messages API);
 * a text is `service`, free inside the service window until 2026-09-30 and charged from
 * 2026-10-01 (§1).
 */
export interface StatusPricingSettings {
  /** The status that carries `pricing` from v24 (default `delivered`). */
  pricingOn?: 'sent' | 'delivered';
  /**
   * The Graph version of the app's webhooks (e.g. `v23.0`); default: the version each send
   * was served as (26 when unknown).
   */
  version?: string;
}

const SERVICE_CHARGED_FROM = Date.UTC(2026, 9, 1);
const CURRENT_MAJOR = 26;

export function statusPricingFields(message: AcceptedMessage, status: string, settings: StatusPricingSettings): Record<string, unknown> {
  if (message.failure !== undefined || (status !== 'sent' && status !== 'delivered')) return {};
  const major = majorOf(settings.version) ?? message.apiMajor ?? CURRENT_MAJOR;
  const pricing = pricingOf(message);
  if (major >= 24) return status === (settings.pricingOn ?? 'delivered') ? { pricing } : {};
  const conversation = {
    id: `CONVERSATION_${message.waId}`,
    ...(status === 'sent' ? { expiration_timestamp: String(Math.floor(message.receivedAt / 1000) + 86_400) } : {}),
    origin: { type: pricing.category },
  };
  return { conversation, pricing };
}

export function pricingOf(message: AcceptedMessage): { billable: boolean; pricing_model: 'PMP'; type: string; category: string } {
  if (message.category === undefined) {
    const charged = message.receivedAt >= SERVICE_CHARGED_FROM;
    return { billable: charged, pricing_model: 'PMP', type: charged ? 'regular' : 'free_customer_service', category: 'service' };
  }
  const category = message.category.toLowerCase();
  const viaMarketingApi = message.endpoint === 'marketing_messages' && category === 'marketing';
  return { billable: true, pricing_model: 'PMP', type: 'regular', category: viaMarketingApi ? 'marketing_lite' : category };
}

function majorOf(version: string | undefined): number | undefined {
  const match = version === undefined ? null : /^v(\d+)\.\d+$/.exec(version);
  return match === null ? undefined : Number(match[1]);
}
