/**
 * The events the product tells the sender's own systems about (outbound hooks, docs/events.md):
 * what became of a row, and of a campaign. The ledger writes them in the step that makes the
 * change (src/redis/lua/includes/events.lua); this is their shape on the wire.
 */
export const ROW_EVENT_TYPES = [
  'row.sent',
  'row.delivered',
  'row.read',
  'row.failed',
  'row.replied',
  'row.opted_out',
  'row.clicked',
] as const;

export const CAMPAIGN_EVENT_TYPES = ['campaign.started', 'campaign.paused', 'campaign.completed', 'campaign.cancelled'] as const;

export const EVENT_TYPES = [...ROW_EVENT_TYPES, ...CAMPAIGN_EVENT_TYPES] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** One event as a hook receives it (inside a batch's `events`). */
export interface CampaignEvent {
  /** Unique and stable: the same event delivered again has the same ID (receivers deduplicate by it). */
  id: string;
  type: EventType;
  /** When the change was recorded (ISO 8601, UTC). */
  occurred_at: string;
  campaign_id: string;
  /** The phone number ID the campaign sends from. */
  phone_number_id: string;
  /** Row events: the row's number in the campaign's file (1 = the first data row). */
  row?: number;
  /** Row events: the recipient (E.164). */
  phone?: string;
  /** The message ID (wamid), when the event has one. */
  message_id?: string;
  /** row.failed: Meta's error code (or ours) and its detail. */
  error?: { code: string; detail: string };
  /** campaign.paused, campaign.cancelled: why. */
  reason?: string;
  /** row.replied: the quick-reply payload or reply ID the person chose. */
  reply?: string;
  /** row.clicked: where the link led. */
  url?: string;
}

/** The event of one entry of a number's event stream (fields as includes/events.lua writes them), or undefined for one it cannot read. */
export function eventFromEntry(
  phoneNumberId: string,
  entryId: string,
  fields: Readonly<Record<string, string>>,
): CampaignEvent | undefined {
  const type = fields.t;
  const campaignId = fields.c;
  const at = Number(fields.at);
  if (type === undefined || !isEventType(type) || campaignId === undefined || !Number.isFinite(at)) return undefined;
  const event: CampaignEvent = {
    id: `evt_${phoneNumberId}_${entryId.replace('-', '_')}`,
    type,
    occurred_at: new Date(at).toISOString(),
    campaign_id: campaignId,
    phone_number_id: phoneNumberId,
  };
  if (fields.r !== undefined) event.row = Number(fields.r);
  if (fields.p !== undefined && fields.p !== '') event.phone = fields.p;
  if (fields.w !== undefined) event.message_id = fields.w;
  if (fields.code !== undefined) event.error = { code: fields.code, detail: fields.detail ?? '' };
  if (fields.reason !== undefined) event.reason = fields.reason;
  if (fields.reply !== undefined) event.reply = fields.reply;
  if (fields.url !== undefined) event.url = fields.url;
  return event;
}
