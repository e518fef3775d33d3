import { z } from 'zod';
import type { StatusView } from '../../cli/format.js';

const instant = z.string().nullable();
const count = z.number().int().min(0);

/** A campaign as `campaign status --json` prints it (StatusView): the API's answers carry the same fields. */
export const campaignViewSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    sourceCampaign: z.string().nullable(),
    state: z.enum(['scheduled', 'ingesting', 'running', 'paused', 'cancelled', 'completed']),
    kind: z.enum(['template', 'text']).nullable(),
    template: z.string().nullable(),
    language: z.string().nullable(),
    priority: z.enum(['high', 'normal', 'low']),
    total: count,
    queued: count,
    sending: count,
    sent: count,
    failed: count,
    rejected: count,
    skipped: count,
    confirming: count,
    held: count,
    unknown: count,
    cancelled: count,
    delivered: count,
    read: count,
    createdAt: z.string(),
    finishedAt: instant,
    pausedReason: z.string().nullable(),
    pausedAt: instant,
    ingestInterrupted: z.boolean(),
    purgedAt: instant,
    expired: count,
    startsAt: instant,
    startDeadline: instant,
    expiresAt: instant,
    startedAt: instant,
    cancelReason: z.string().nullable(),
    window: z.string().nullable(),
    waiting: count.nullable(),
    nextWindowAt: instant,
    cost: z
      .object({
        currency: z.string(),
        estimated: z.number().nullable(),
        billable: count,
        amount: z.number().nullable(),
        missing: z.array(z.string()).optional(),
      })
      .optional(),
  })
  .meta({ id: 'Campaign' });

// The schema describes what statusJson makes: a field added to one and not the other, or typed apart, fails to compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type View = z.infer<typeof campaignViewSchema>;
const sameFields: Same<keyof View, keyof StatusView> = true;
const fits: StatusView extends View ? true : false = true;
void sameFields;
void fits;
