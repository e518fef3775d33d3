import type { StatusUpdate, TemplateInfoUpdate, TemplateStatusUpdate } from '../campaigns/ledger.js';
import type { AccountError } from '../campaigns/settle/account-errors.js';
import type { InboundEvent, PreferenceEvent, StatusEvent, UserIdChange } from '../campaigns/settle/user-joins.js';
import { toLimitUpdate, type LimitUpdate } from './limit-events.js';
import { flowResponseOf } from './flow-response.js';
import { text, userOf } from './webhook-contacts.js';
import { statusPricing } from './status-pricing.js';
import { entryTimeMs, toTemplateInfo } from './template-info-events.js';

/**
 * The events of one webhook POST (reference §3.2): every entry, every change, every item,
 * not only the first (a batch holds up to 1,000). Each change is routed by its own
 * `metadata.phone_number_id`. Shapes we do not act on are counted, not refused: Meta adds
 * fields and kinds over time, and a refused delivery would only be retried for days.
 */
export interface WebhookEvents {
  statuses: StatusEvent[];
  /**
   * Messages from users: each opens a 24-hour window; a button reply or a Flow's answer goes on the campaign row it
   * replies to; a keyword opts out.
   * A phone (`from`), a business-scoped user ID (`from_user_id`, `contacts[].user_id`), or both.
   */
  inbound: InboundEvent[];
  /** `user_preferences`: marketing stop / resume, by phone (`wa_id`), user ID (`user_id`) or both. */
  preferences: PreferenceEvent[];
  /** `system` messages `user_changed_user_id`: a user's business-scoped user ID changed. */
  userIdChanges: UserIdChange[];
  /** `message_template_status_update`: a template paused, disabled, reinstated… */
  templates: TemplateStatusUpdate[];
  /** `business_capability_update`, `account_update`: the portfolio's messaging limit changed, or may have. */
  limits: LimitUpdate[];
  /** `message_template_quality_update`, `template_category_update`: a template's quality score or category. */
  templateInfo: TemplateInfoUpdate[];
  /** A `messages` change's `errors[]`: account-, app- and system-level problems, for the number of the change. */
  accountErrors: AccountError[];
  /** Items of kinds this version does not act on (inbound messages, preferences, template updates…). */
  ignored: number;
  /**
   * Items without the fields they need (a status: id, status, timestamp; a message or preference: a phone
   * or a user ID, and a timestamp): counted, not applied. A missing phone alone never makes an item malformed.
   */
  malformed: number;
}

const KINDS = new Set(['sent', 'delivered', 'read', 'failed']);

export type ParseResult = { ok: true; events: WebhookEvents } | { ok: false; problem: string };

/** Is this text an opt-out keyword (OPT_OUT_KEYWORDS)? */
export type OptOutMatcher = (text: string) => boolean;

/** OPT_OUT_KEYWORDS as a matcher: case and spacing ignored ("stop  promotions" is STOP PROMOTIONS). */
export function optOutMatcher(keywords: readonly string[]): OptOutMatcher {
  const normal = (text: string) => text.trim().replace(/\s+/g, ' ').toUpperCase();
  const set = new Set(keywords.map(normal).filter((k) => k !== ''));
  return (text) => set.has(normal(text));
}

export function parseWebhook(raw: Buffer | string, isOptOut: OptOutMatcher = () => false): ParseResult {
  let payload: unknown;
  try {
    payload = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch (error) {
    return { ok: false, problem: `not JSON: ${(error as Error).message}` };
  }
  if (!isObject(payload) || !Array.isArray(payload.entry))
    return { ok: false, problem: 'no entry[] array (not a WhatsApp Business Account webhook)' };
  const events: WebhookEvents = {
    statuses: [],
    inbound: [],
    preferences: [],
    userIdChanges: [],
    templates: [],
    limits: [],
    templateInfo: [],
    accountErrors: [],
    ignored: 0,
    malformed: 0,
  };
  for (const entry of payload.entry) {
    if (!isObject(entry) || !Array.isArray(entry.changes)) continue;
    for (const change of entry.changes) {
      if (isObject(change) && isObject(change.value)) addChange(events, entry, change, change.value, isOptOut);
    }
  }
  return { ok: true, events };
}

/** One change of an entry, routed by its `field`, into the batch's events. */
function addChange(
  events: WebhookEvents,
  entry: Record<string, unknown>,
  change: Record<string, unknown>,
  value: Record<string, unknown>,
  isOptOut: OptOutMatcher,
): void {
  const phoneNumberId =
    isObject(value.metadata) && typeof value.metadata.phone_number_id === 'string' ? value.metadata.phone_number_id : '';
  if (change.field === 'user_preferences' && Array.isArray(value.user_preferences)) {
    const contacts = Array.isArray(value.contacts) ? value.contacts.filter(isObject) : [];
    for (const item of value.user_preferences) {
      const preference = toPreference(item, phoneNumberId, contacts);
      if (preference === undefined) events.malformed++;
      else events.preferences.push(preference);
    }
    return;
  }
  const info = toTemplateInfo(change.field, value, entryTimeMs(entry));
  if (info !== undefined) {
    if (info === 'malformed') events.malformed++;
    else if (info === 'ignored') events.ignored++;
    else events.templateInfo.push(info);
    return;
  }
  if (change.field === 'message_template_status_update') {
    const template = toTemplateStatus(value);
    if (template === undefined) events.malformed++;
    else events.templates.push(template);
    return;
  }
  const limit = toLimitUpdate(change.field, value, entry.id);
  if (limit !== undefined) {
    events.limits.push(limit);
    return;
  }
  if (change.field !== 'messages') {
    events.ignored += countItems(value);
    return;
  }
  const contacts = Array.isArray(value.contacts) ? value.contacts.filter(isObject) : [];
  for (const item of Array.isArray(value.statuses) ? value.statuses : []) {
    const status = toStatus(item, phoneNumberId, contacts);
    if (status === undefined) events.malformed++;
    else if (status === 'other') events.ignored++;
    else events.statuses.push(status);
  }
  for (const item of Array.isArray(value.messages) ? value.messages : []) {
    const idChange = toUserIdChange(item, phoneNumberId, contacts);
    if (idChange !== undefined) {
      if (idChange === 'malformed') events.malformed++;
      else events.userIdChanges.push(idChange);
      continue;
    }
    const inbound = toInbound(item, phoneNumberId, isOptOut, contacts);
    if (inbound === undefined) events.malformed++;
    else events.inbound.push(inbound);
  }
  for (const item of Array.isArray(value.errors) ? value.errors : []) {
    const error = toAccountError(item, phoneNumberId, entryTimeMs(entry));
    if (error === undefined) events.malformed++;
    else events.accountErrors.push(error);
  }
}

/** One of a change's `errors[]` (Meta's error object: code, title, message, error_data.details); no code is malformed. */
function toAccountError(item: unknown, phoneNumberId: string, at: number): AccountError | undefined {
  if (!isObject(item)) return undefined;
  const code = typeof item.code === 'number' && Number.isInteger(item.code) ? String(item.code) : text(item.code);
  if (code === undefined || !/^\d{1,10}$/.test(code)) return undefined;
  const title = text(item.title) ?? text(item.message) ?? '';
  const details = (isObject(item.error_data) ? text(item.error_data.details) : undefined) ?? text(item.message) ?? '';
  return { phoneNumberId, code, title: title.slice(0, 200), details: details.slice(0, 500), at };
}

function toStatus(item: unknown, phoneNumberId: string, contacts: readonly Record<string, unknown>[]): StatusEvent | 'other' | undefined {
  if (!isObject(item) || typeof item.id !== 'string' || item.id === '' || typeof item.status !== 'string') return undefined;
  // Unix seconds as a string (a number is accepted too).
  const seconds =
    typeof item.timestamp === 'string' ? Number(item.timestamp) : typeof item.timestamp === 'number' ? item.timestamp : Number.NaN;
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
  // `played` (voice) and kinds Meta may add: not a delivery state of ours.
  if (!KINDS.has(item.status) || phoneNumberId === '') return 'other';
  const update: StatusEvent = { phoneNumberId, wamid: item.id, kind: item.status as StatusUpdate['kind'], at: Math.round(seconds * 1000) };
  if (typeof item.biz_opaque_callback_data === 'string' && item.biz_opaque_callback_data !== '')
    update.callbackData = item.biz_opaque_callback_data;
  // Who it went to: kept to learn the user ID ↔ phone link, never to find the row (wamid and callback data do that).
  // `failed` has no contact (Meta), and a contact found for it would be another status's recipient.
  const who = userOf(text(item.recipient_id), text(item.recipient_user_id), update.kind === 'failed' ? [] : contacts);
  if (who?.waId !== undefined) update.recipientId = who.waId;
  if (who?.userId !== undefined) update.userId = who.userId;
  const pricing = update.kind === 'failed' ? undefined : statusPricing(item);
  if (pricing !== undefined) update.pricing = pricing;
  if (update.kind === 'failed') {
    const error = Array.isArray(item.errors) && isObject(item.errors[0]) ? item.errors[0] : undefined;
    update.code =
      error !== undefined && (typeof error.code === 'number' || typeof error.code === 'string') ? String(error.code) : 'UNKNOWN';
    const details =
      error !== undefined && isObject(error.error_data) && typeof error.error_data.details === 'string'
        ? error.error_data.details
        : undefined;
    const title = error !== undefined && typeof error.title === 'string' ? error.title : undefined;
    update.detail = (details ?? title ?? 'failed, by status webhook').slice(0, 500);
  }
  return update;
}

function seconds(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : typeof value === 'number' ? value : Number.NaN;
  return Number.isFinite(n) && n > 0 ? n : Number.NaN;
}

/**
 * A user's message (reference §3.4): who, when, what it answers, and whether it is an opt-out keyword.
 * Who is the phone (`from`), the business-scoped user ID (`from_user_id`, or the sender's
 * `contacts[].user_id`), or both: a user with a username may come without a phone.
 */
function toInbound(
  item: unknown,
  phoneNumberId: string,
  isOptOut: OptOutMatcher,
  contacts: readonly Record<string, unknown>[],
): InboundEvent | undefined {
  if (!isObject(item) || typeof item.id !== 'string') return undefined;
  const who = userOf(text(item.from), text(item.from_user_id), contacts);
  const at = seconds(item.timestamp);
  if (who === undefined || Number.isNaN(at) || phoneNumberId === '') return undefined;
  const update: InboundEvent = { phoneNumberId, ...who, wamid: item.id, at: Math.round(at * 1000), optOut: false };
  if (isObject(item.context) && typeof item.context.id === 'string') update.replyTo = item.context.id;
  let words: string | undefined;
  if (item.type === 'button' && isObject(item.button)) {
    const payload = typeof item.button.payload === 'string' ? item.button.payload : undefined;
    const label = typeof item.button.text === 'string' ? item.button.text : undefined;
    update.reply = (payload ?? label ?? '').slice(0, 256);
    update.optOut = (payload !== undefined && isOptOut(payload)) || (label !== undefined && isOptOut(label));
  } else if (item.type === 'interactive' && isObject(item.interactive)) {
    const reply = isObject(item.interactive.button_reply)
      ? item.interactive.button_reply
      : isObject(item.interactive.list_reply)
        ? item.interactive.list_reply
        : undefined;
    if (reply !== undefined && typeof reply.id === 'string') update.reply = reply.id.slice(0, 256);
    // A Flow's answer: it belongs to the row whose message opened the Flow (context.id), as a button tap does.
    const flowResponse = flowResponseOf(item.interactive);
    if (flowResponse !== undefined) update.flowResponse = flowResponse;
  } else if (item.type === 'text' && isObject(item.text) && typeof item.text.body === 'string') {
    words = item.text.body;
  }
  if (words !== undefined && isOptOut(words)) update.optOut = true;
  return update;
}

/** `user_preferences` values: a stop, and the two kinds of consent that lift it (an In-App Signup opt-in is a `signup`). */
const PREFERENCE_VALUES: Readonly<Record<string, PreferenceEvent['value']>> = { stop: 'stop', resume: 'resume', signup: 'resume' };

/** A marketing stop / resume / signup (reference §3.5); its timestamp is a number of seconds; `wa_id`, `user_id` or both. */
function toPreference(item: unknown, phoneNumberId: string, contacts: readonly Record<string, unknown>[]): PreferenceEvent | undefined {
  const value = isObject(item) && typeof item.value === 'string' ? PREFERENCE_VALUES[item.value] : undefined;
  if (!isObject(item) || value === undefined) return undefined;
  const who = userOf(text(item.wa_id), text(item.user_id), contacts);
  const at = seconds(item.timestamp);
  if (who === undefined || Number.isNaN(at) || phoneNumberId === '') return undefined;
  return { phoneNumberId, ...who, value, at: Math.round(at * 1000) };
}

/**
 * A `system` message `user_changed_user_id` (Meta's business-scoped user ID page and its system
 * message reference): the new ID in `system.user_id` (and the phone in `system.wa_id`, else the
 * sender's `from`), the old one in `system.previous_user_id` or the sender's `from_user_id`, else
 * read from `system.body` ("… changed from US.1… to US.2…"). Undefined for any other message;
 * 'malformed' when it names no new ID, or neither the old ID nor the phone (then nothing can
 * be linked to the new one).
 */
function toUserIdChange(
  item: unknown,
  phoneNumberId: string,
  contacts: readonly Record<string, unknown>[],
): UserIdChange | 'malformed' | undefined {
  if (!isObject(item) || item.type !== 'system' || !isObject(item.system) || item.system.type !== 'user_changed_user_id') return undefined;
  const { system } = item;
  const fromBody = typeof system.body === 'string' ? /from\s+(\S+?)\.?\s+to\s+(\S+?)\.?$/.exec(system.body.trim()) : null;
  const previous = text(system.previous_user_id) ?? text(item.from_user_id) ?? fromBody?.[1];
  const who = userOf(text(system.wa_id) ?? text(item.from), text(system.user_id) ?? fromBody?.[2], contacts);
  const at = seconds(item.timestamp);
  if (who?.userId === undefined || previous === who.userId || Number.isNaN(at) || phoneNumberId === '') return 'malformed';
  if (previous === undefined && who.waId === undefined) return 'malformed';
  return {
    phoneNumberId,
    ...(previous === undefined ? {} : { previous }),
    userId: who.userId,
    ...(who.waId === undefined ? {} : { waId: who.waId }),
    at: Math.round(at * 1000),
  };
}

/**
 * A template's status change (reference cloud-api.md §3.7, Meta's `message_template_status_update`):
 * `value` is `{ event, message_template_id, message_template_name, message_template_language, reason,
 * other_info?: { title, description } }`, for the WABA (`entry.id`), with no phone number. The name and
 * language find the campaigns; `reason` (or `other_info.title`) explains the pause.
 */
function toTemplateStatus(value: Record<string, unknown>): TemplateStatusUpdate | undefined {
  const { event, message_template_name: name, message_template_language: language } = value;
  if (typeof event !== 'string' || event === '' || typeof name !== 'string' || name === '') return undefined;
  if (typeof language !== 'string' || language === '') return undefined;
  const reason = typeof value.reason === 'string' && value.reason !== 'NONE' ? value.reason : '';
  const title = isObject(value.other_info) && typeof value.other_info.title === 'string' ? value.other_info.title : '';
  return { event: event.toUpperCase(), name, language, detail: (reason !== '' ? reason : title).slice(0, 500) };
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
