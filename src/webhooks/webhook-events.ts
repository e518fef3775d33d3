import type { StatusUpdate } from '../campaigns/ledger.js';

/**
 * The events of one webhook POST (reference §3.2): every entry, every change, every item,
 * not only the first (a batch holds up to 1,000). Each change is routed by its own
 * `metadata.phone_number_id`. Shapes we do not act on are counted, not refused: Meta adds
 * fields and kinds over time, and a refused delivery would only be retried for days.
 */
export interface WebhookEvents {
  statuses: StatusUpdate[];
  /** Items of kinds this version does not act on (inbound messages, preferences, template updates…). */
  ignored: number;
  /** Status items without the fields a status needs (id, status, timestamp): counted, not applied. */
  malformed: number;
}

const KINDS = new Set(['sent', 'delivered', 'read', 'failed']);

export type ParseResult = { ok: true; events: WebhookEvents } | { ok: false; problem: string };

export function parseWebhook(raw: Buffer | string): ParseResult {
  let payload: unknown;
  try {
    payload = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch (error) {
    return { ok: false, problem: `not JSON: ${(error as Error).message}` };
  }
  if (!isObject(payload) || !Array.isArray(payload.entry)) return { ok: false, problem: 'no entry[] array (not a WhatsApp Business Account webhook)' };
  const events: WebhookEvents = { statuses: [], ignored: 0, malformed: 0 };
  for (const entry of payload.entry) {
    if (!isObject(entry) || !Array.isArray(entry.changes)) continue;
    for (const change of entry.changes) {
      if (!isObject(change) || !isObject(change.value)) continue;
      const value = change.value;
      const phoneNumberId = isObject(value.metadata) && typeof value.metadata.phone_number_id === 'string' ? value.metadata.phone_number_id : '';
      if (change.field !== 'messages' || !Array.isArray(value.statuses)) {
        events.ignored += countItems(value);
        continue;
      }
      for (const item of value.statuses) {
        const status = toStatus(item, phoneNumberId);
        if (status === undefined) events.malformed++;
        else if (status === 'other') events.ignored++;
        else events.statuses.push(status);
      }
      events.ignored += countItems({ ...value, statuses: undefined });
    }
  }
  return { ok: true, events };
}

function toStatus(item: unknown, phoneNumberId: string): StatusUpdate | 'other' | undefined {
  if (!isObject(item) || typeof item.id !== 'string' || item.id === '' || typeof item.status !== 'string') return undefined;
  // Unix seconds as a string (a number is accepted too).
  const seconds = typeof item.timestamp === 'string' ? Number(item.timestamp) : typeof item.timestamp === 'number' ? item.timestamp : Number.NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
  // `played` (voice) and kinds Meta may add: not a delivery state of ours.
  if (!KINDS.has(item.status) || phoneNumberId === '') return 'other';
  const update: StatusUpdate = { phoneNumberId, wamid: item.id, kind: item.status as StatusUpdate['kind'], at: Math.round(seconds * 1000) };
  if (typeof item.biz_opaque_callback_data === 'string' && item.biz_opaque_callback_data !== '') update.callbackData = item.biz_opaque_callback_data;
  if (update.kind === 'failed') {
    const error = Array.isArray(item.errors) && isObject(item.errors[0]) ? item.errors[0] : undefined;
    update.code = error !== undefined && (typeof error.code === 'number' || typeof error.code === 'string') ? String(error.code) : 'UNKNOWN';
    const details = error !== undefined && isObject(error.error_data) && typeof error.error_data.details === 'string' ? error.error_data.details : undefined;
    const title = error !== undefined && typeof error.title === 'string' ? error.title : undefined;
    update.detail = (details ?? title ?? 'failed, by status webhook').slice(0, 500);
  }
  return update;
}

/** Items of a change we do not apply (inbound messages, contacts are not counted: they come with their messages). */
function countItems(value: Record<string, unknown>): number {
  let n = 0;
  for (const key of ['messages', 'statuses', 'errors', 'user_preferences']) {
    const items = value[key];
    if (Array.isArray(items)) n += items.length;
  }
  if (n === 0 && value.event !== undefined) n = 1;
  return n;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
