import { z } from 'zod';
import { ASYNC_FAILURE_CODES } from './async-failures.js';
import { FAILED_STATUS_CODES } from './failure-wording.js';

/**
 * What can be made to go wrong, and the strict schema every way of setting it goes through
 * (startSandbox's `faults`, setFaults, POST /_sandbox/faults). A typo'd or out-of-range
 * setting is refused rather than silently ignored: a fault test that injects nothing passes
 * for the wrong reason.
 */
export interface FaultSettings {
  /** Fraction (0..1) answered with a 5xx Graph error; nothing is accepted. */
  errorRate?: number;
  /** Statuses picked from at random for those answers (default [500, 503]). */
  errorStatuses?: number[];
  /** Added before every /messages answer. */
  latencyMs?: number;
  /** Fraction (0..1) held without an answer until the client gives up or the sandbox closes. */
  timeoutRate?: number;
  /**
   * Bursts of throttling: during the first `forMs` of every `everyMs` (aligned on the
   * sandbox clock), every /messages request is answered 400 with Graph error code 130429
   * (Meta's throughput error, same body as the real throughput limiter); nothing is accepted.
   */
  throttleBursts?: { everyMs: number; forMs: number };
  /**
   * Per-recipient forced errors: the next `times` sends to this recipient (waId = digits
   * only, as the sandbox normalises `to`) fail with `code`. A code Meta answers synchronously
   * is answered with it (HTTP 400, Graph body as for that code elsewhere in the sandbox; for
   * 131056 the pair-limit error details), not accepted. A code Meta reports only by webhook
   * (130472, 131026, 131047, 131049, 131050, 131053) is accepted (200 + wamid) and reported
   * `failed` with that code by status webhook. Counters start when the faults are set;
   * setFaults replaces them.
   */
  recipientErrors?: Array<{ waId: string; code: number; times: number }>;
  /**
   * Per-recipient failures by webhook, whatever the code: the next `times` sends to this
   * recipient are accepted (200 + wamid) and reported `failed` with `code` by status webhook,
   * with Meta's title and details for it. For the codes Meta answers either way (131000,
   * 131048, 132000 …: failure-wording.ts lists them all), where recipientErrors answers at once.
   * A recipient is in recipientErrors or here, not both: one rule decides each send.
   */
  failedStatus?: Array<{ waId: string; code: number; times: number }>;
  /**
   * Recipients (waIds) who stopped marketing messages from the business: a MARKETING
   * template sent to them is accepted and reported `failed` 131050 by webhook; other
   * templates (utility …) and text still reach them.
   */
  optedOut?: string[];
  /**
   * A share (`rate`, 0..1) of accepted sends is reported `failed` by webhook with one of
   * `codes` (webhook-only codes: 130472, 131026, 131047, 131049, 131050, 131053), drawn from
   * the sandbox's random source (fixed in tests).
   */
  failureShare?: { rate: number; codes: number[] };
  /**
   * For `forMs` from when the faults are set, every send from `phoneNumberId` (every number
   * when left out) is answered 500 / 131057 (account in maintenance mode, e.g. Meta's
   * minute-long throughput upgrade); nothing is accepted.
   */
  maintenance?: { forMs: number; phoneNumberId?: string };
  /**
   * Meta's pause of marketing to the US (since 2025-04-01): a MARKETING template to a US
   * number (+1 with a US area code) is accepted and reported `failed` 131049 by webhook. On
   * unless set to false (as when Meta lifts it); it is Meta's behaviour, not an injected fault.
   */
  usMarketingPaused?: boolean;
  /**
   * The Marketing Messages API refuses the business (not onboarded, not eligible, template
   * still syncing): every /marketing_messages send from `phoneNumberId` (every number when
   * left out) that passes validation is answered 400 with `code` (134100–134103). /messages is
   * not affected.
   */
  marketingMessagesRefusal?: { code: number; phoneNumberId?: string };
  /**
   * Users (waIds) who adopted a WhatsApp username: their messages (`POST /_sandbox/inbound`)
   * and marketing preferences (`POST /_sandbox/user-preferences`) carry their business-scoped
   * `user_id` only, without `from` / `wa_id`, as Meta sends them (reference cloud-api-2026.md §4).
   * Statuses of sends to their phone still carry both.
   */
  usernameUsers?: string[];
  /**
   * Meta's template pacing: a `share` (0..1) of accepted template sends is answered
   * `message_status: "held_for_quality_assessment"`. `releaseAfterMs` (default 1000) after the
   * send, a held message is released (its sent, delivered and read follow) or, for `dropShare`
   * (0..1, default 0) of them, dropped: `failed` 132015 by webhook, with no `sent` before it.
   * Both shares are spread evenly (every n-th), not drawn, counted from when the faults are set.
   */
  held?: { share: number; releaseAfterMs?: number; dropShare?: number };
}

const DAY_MS = 86_400_000;
/** Enough for any test or demo; a bound keeps a pasted-in recipient list from growing unchecked. */
export const MAX_RECIPIENT_ERRORS = 10_000;

const throttleBurstsSchema = z
  .strictObject({
    everyMs: z.number().int('everyMs must be a whole number of ms').min(1).max(DAY_MS),
    forMs: z.number().int('forMs must be a whole number of ms').min(1),
  })
  // forMs === everyMs is allowed: "always throttled" is a legitimate scenario.
  .refine((bursts) => bursts.forMs <= bursts.everyMs, {
    message: 'forMs must not exceed everyMs',
    path: ['forMs'],
  });

const waIdSchema = z
  .string()
  .regex(/^\d{7,15}$/, 'waId must be the recipient\'s 7–15 digits only (no "+", spaces or dashes), as the sandbox normalises `to`');

const recipientErrorSchema = z.strictObject({
  waId: waIdSchema,
  code: z.number().int('code must be a Graph error code (a whole number)').min(1).max(9_999_999),
  times: z.number().int('times must be a whole number').min(1).max(1_000_000),
});

const recipientErrorsSchema = z
  .array(recipientErrorSchema)
  .max(MAX_RECIPIENT_ERRORS)
  // Two entries for one recipient would leave it unclear which applies first.
  .refine((entries) => new Set(entries.map((entry) => entry.waId)).size === entries.length, {
    message: 'each waId may appear only once',
  });

/** The webhook path for any code a `failed` status may carry (FaultSettings.failedStatus). */
const failedStatusSchema = z
  .array(
    recipientErrorSchema.extend({
      code: z.number().refine((code) => FAILED_STATUS_CODES.has(code), {
        message: `code must be one Meta reports in a failed status: ${[...FAILED_STATUS_CODES].join(', ')}`,
      }),
    }),
  )
  .max(MAX_RECIPIENT_ERRORS)
  .refine((entries) => new Set(entries.map((entry) => entry.waId)).size === entries.length, {
    message: 'each waId may appear only once',
  });

const optedOutSchema = z
  .array(waIdSchema)
  .max(MAX_RECIPIENT_ERRORS)
  .refine((waIds) => new Set(waIds).size === waIds.length, { message: 'each waId may appear only once' });

const asyncCodeSchema = z
  .number()
  .int()
  .refine((code) => ASYNC_FAILURE_CODES.has(code), {
    message: `codes must be ones Meta reports only by webhook: ${[...ASYNC_FAILURE_CODES].join(', ')}`,
  });

const failureShareSchema = z.strictObject({
  rate: z.number().min(0).max(1),
  codes: z.array(asyncCodeSchema).min(1, 'codes needs at least one code'),
});

const maintenanceSchema = z.strictObject({
  forMs: z.number().int('forMs must be a whole number of ms').min(1).max(DAY_MS),
  phoneNumberId: z.string().regex(/^\d+$/, 'phoneNumberId must be the numeric phone-number ID').optional(),
});

export const faultSettingsSchema = z
  .strictObject({
    errorRate: z.number().min(0).max(1).optional(),
    errorStatuses: z.array(z.number().int().min(500).max(599)).min(1).optional(),
    latencyMs: z.number().int().min(0).max(600_000).optional(),
    timeoutRate: z.number().min(0).max(1).optional(),
    throttleBursts: throttleBurstsSchema.optional(),
    recipientErrors: recipientErrorsSchema.optional(),
    failedStatus: failedStatusSchema.optional(),
    optedOut: optedOutSchema.optional(),
    failureShare: failureShareSchema.optional(),
    maintenance: maintenanceSchema.optional(),
    usMarketingPaused: z.boolean().optional(),
    marketingMessagesRefusal: z
      .strictObject({
        code: z.number().int().min(134100, 'code must be one of 134100–134103').max(134103, 'code must be one of 134100–134103'),
        phoneNumberId: z.string().regex(/^\d+$/, 'phoneNumberId must be the numeric phone-number ID').optional(),
      })
      .optional(),
    usernameUsers: optedOutSchema.optional(),
    held: z
      .strictObject({
        share: z.number().min(0).max(1),
        releaseAfterMs: z.number().int('releaseAfterMs must be a whole number of ms').min(0).max(DAY_MS).optional(),
        dropShare: z.number().min(0).max(1).optional(),
      })
      .optional(),
  })
  // Both lists force a recipient's next sends: one recipient in both would leave it unclear which applies.
  .refine(
    (settings) => {
      const forced = new Set(settings.recipientErrors?.map((entry) => entry.waId));
      return !(settings.failedStatus ?? []).some((entry) => forced.has(entry.waId));
    },
    { message: 'a waId may be in recipientErrors or failedStatus, not both', path: ['failedStatus'] },
  );

export type ParsedFaultSettings = z.infer<typeof faultSettingsSchema>;
