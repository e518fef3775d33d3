import { z } from 'zod';
import { statusViewSchema as campaignViewSchema } from '../../app/views/status-view.js';

/**
 * What the control routes answer: what the CLI command reports (it prints text only), as
 * fields, and the campaign as `GET /campaigns/{id}` shows it after the change.
 */
const controlled = { id: z.string(), campaign: campaignViewSchema };
const instant = z.string().nullable();
const count = z.number().int().min(0);

export const pauseAnswerSchema = z
  .object({
    ...controlled,
    alreadyPaused: z.boolean().meta({ description: 'It was paused before: nothing changed (its reason is kept).' }),
  })
  .meta({ id: 'PauseOutcome' });

export const resumeAnswerSchema = z
  .object({
    ...controlled,
    wasPaused: z.boolean().meta({ description: 'false: it was not paused, nothing changed.' }),
  })
  .meta({ id: 'ResumeOutcome' });

export const cancelAnswerSchema = z
  .object({
    ...controlled,
    alreadyCancelled: z.boolean().meta({ description: 'It was cancelled before: nothing changed.' }),
    cancelled: count.meta({ description: 'Rows not yet fed, cancelled now; rows already fed are cancelled as workers reach them.' }),
    reason: z.string().nullable().meta({ description: 'Why it was cancelled before, when not by an operator (`START_DEADLINE: …`).' }),
    finishedAt: instant.meta({ description: 'When it ended, for one cancelled before.' }),
  })
  .meta({ id: 'CancelOutcome' });

export const rescheduleAnswerSchema = z
  .object({ ...controlled, startsAt: z.string().meta({ description: 'The new start (ISO 8601, UTC).' }) })
  .meta({ id: 'RescheduleOutcome' });

export const retryAnswerSchema = z
  .object({
    ...controlled,
    requeued: count.meta({ description: 'Rows put back in the queue.' }),
    paused: z.boolean().meta({ description: 'The campaign is paused: the rows go out after resume.' }),
    held: count.meta({ description: "Failed with 131049 (Meta's ecosystem limit) less than 24 h ago: left failed until heldUntil." }),
    heldUntil: instant.meta({ description: 'The earliest time one of those may be retried; null when none is held.' }),
    usMarketing: count.meta({ description: 'Failed with 131049 to US numbers in a MARKETING campaign: left failed.' }),
    optedOut: count.meta({ description: 'Their recipient opted out of marketing: never sent again.' }),
    experiment: count.meta({
      description: "Failed with 130472 (the recipient is part of Meta's experiment): left failed unless `codes` names 130472.",
    }),
    noPayload: count.meta({ description: 'Recorded without their values by an old version: left as they are.' }),
  })
  .meta({ id: 'RetryOutcome' });
