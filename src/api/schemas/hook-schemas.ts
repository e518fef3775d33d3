import { z } from 'zod';
import { CAMPAIGN_ID_PATTERN } from '../../campaigns/campaign-id.js';
import { EVENT_TYPES } from '../../events/campaign-event.js';
import { HOOK_NAME } from '../../hooks/hook-name.js';

const count = z.number().int().min(0);
const instant = z.string().meta({ format: 'date-time', description: 'ISO 8601, UTC.' });
const eventType = z.enum(EVENT_TYPES);

/** Shorthands the hook's event list may use besides the events' names (parseHookEvents). */
export const HOOK_EVENT_GROUPS = ['all', 'row.*', 'campaign.*'] as const;

/**
 * An http(s) URL without a user name or password (parseHookUrl refuses those: the URL is shown
 * by the list and the pages, and the signature authenticates a delivery).
 */
export const HOOK_URL_FORM = '^https?://[^/?#@\\s]+(?:[/?#][^\\s]*)?$';

const hookNameDescription =
  'The hook: a letter or digit, then letters, digits, `_`, `-` or `.`, 64 characters at most (e.g. `crm` or `crm.example.com`).';

/** `/hooks/{name}`: a name of another form names no hook (404 HOOK_NOT_FOUND). */
export const hookNameParams = z.strictObject({
  name: z.string().meta({ pattern: HOOK_NAME.source, description: hookNameDescription }),
});

/** `POST /hooks`: what `campaign hooks add URL --events LIST [--campaign ID] [--name NAME]` takes. */
export const addHookBody = z.strictObject({
  url: z
    .string()
    .max(2048)
    .regex(new RegExp(HOOK_URL_FORM), { error: 'an absolute http:// or https:// URL without a user name or password' })
    .meta({
      format: 'uri',
      description:
        'Where the batches are POSTed: an absolute `http://` or `https://` URL, without a user name or password (verify the ' +
        '`X-Campaign-Signature` instead); another is 422 HOOK_INVALID.',
    }),
  events: z
    .array(z.enum([...EVENT_TYPES, ...HOOK_EVENT_GROUPS]))
    .min(1)
    .max(EVENT_TYPES.length + HOOK_EVENT_GROUPS.length)
    .meta({ description: 'The events it receives: their names, or `all`, `row.*`, `campaign.*` (each once is enough).' }),
  campaignId: z
    .string()
    .regex(CAMPAIGN_ID_PATTERN, { error: 'not a campaign ID (a letter, then up to 63 letters, digits, _ or -)' })
    .optional()
    .meta({ description: "Only this campaign's events; a campaign this service does not have is 422 CAMPAIGN_NOT_FOUND." }),
  name: z
    .string()
    .regex(HOOK_NAME, { error: 'a letter or digit, then letters, digits, _, - or ., 64 characters at most' })
    .optional()
    .meta({ description: `${hookNameDescription} Default: the URL's host. A name in use is 409 HOOK_INVALID.` }),
});

export const hookFiguresSchema = z
  .object({
    queued: count.meta({ description: 'Events put in its outbox (again, when redelivered).' }),
    delivered: count.meta({ description: 'Events its receiver acknowledged with a 2xx.' }),
    retried: count.meta({ description: 'Events sent again after a failed attempt (one per event per retry).' }),
    dead: count.meta({ description: 'Events given up on after HOOK_RETRY_HOURS of failures (`GET /hooks/{name}/failed`).' }),
    waiting: count.meta({ description: 'Events waiting to be delivered now.' }),
    lagSeconds: z
      .number()
      .min(0)
      .nullable()
      .meta({ description: "Seconds from the last delivered batch's oldest event to its delivery; null before any." }),
  })
  .meta({ id: 'HookFigures' });

/** A hook as listed (HookView): never its secret. */
export const hookSchema = z
  .object({
    name: z.string(),
    url: z.string(),
    events: z.array(eventType).meta({ description: 'The events it receives, in the order of the event list (docs/events.md).' }),
    campaignId: z.string().nullable().meta({ description: "Only this campaign's events; null: every campaign's." }),
    createdAt: instant,
    figures: hookFiguresSchema,
  })
  .meta({ id: 'Hook' });

export const hookListSchema = z.object({ hooks: z.array(hookSchema).meta({ description: 'By name.' }) });

/** What `POST /hooks` answers: the hook and its secret, this once. */
export const hookAddedSchema = hookSchema
  .extend({
    secret: z.string().meta({
      description:
        'The key of the `X-Campaign-Signature` HMAC over each batch (docs/events.md). Shown this once: no route answers it again.',
    }),
  })
  .meta({ id: 'HookAdded' });

export const hookTestSchema = z.object({
  ok: z.boolean().meta({ description: 'The receiver answered 2xx.' }),
  status: z.number().int().min(0).meta({ description: "The receiver's HTTP status; 0 when none came (refused, timed out)." }),
  reason: z.string().nullable().meta({ description: 'Why it failed (HTTP 500, ECONNREFUSED, …); null when it worked.' }),
});

/** One event on the wire (CampaignEvent), as a hook receives it in a batch's `events`. */
export const campaignEventSchema = z
  .object({
    id: z.string().meta({ description: 'Stable across redeliveries: receivers deduplicate by it.' }),
    type: eventType,
    occurred_at: instant,
    campaign_id: z.string(),
    phone_number_id: z.string(),
    row: count.optional().meta({ description: "Row events: the row's number in the campaign's file (1 = the first data row)." }),
    phone: z.string().optional().meta({ description: 'Row events: the recipient (E.164).' }),
    message_id: z.string().optional().meta({ description: 'The message ID (wamid), when the event has one.' }),
    error: z.object({ code: z.string(), detail: z.string() }).optional().meta({ description: "row.failed: the error's code and detail." }),
    reason: z.string().optional().meta({ description: 'campaign.paused, campaign.cancelled: why.' }),
    reply: z.string().optional().meta({ description: 'row.replied: the quick-reply payload or reply ID.' }),
    url: z.string().optional().meta({ description: 'row.clicked: where the link led.' }),
  })
  .meta({ id: 'CampaignEvent' });

export const failedHookEventsSchema = z.object({
  hook: z.string(),
  failed: z
    .array(
      z.object({
        event: campaignEventSchema,
        failedAt: instant.meta({ description: 'When it was given up on.' }),
        reason: z.string().meta({ description: "The last attempt's answer (HTTP 500, ECONNREFUSED, …)." }),
      }),
    )
    .meta({ description: 'The dead letters, oldest first, up to `limit`.' }),
});

export const failedHookEventsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(100).meta({ description: 'At most this many (default 100).' }),
});

export const redeliverAnswerSchema = z.object({
  redelivered: count.meta({ description: 'Dead letters put back in the outbox, to be delivered (and retried) again.' }),
});
