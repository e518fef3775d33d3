import type { RejectionReason } from '../../campaigns/rejection-reasons.js';
import type { ProblemItem } from '../../errors/problems-error.js';

/*
 * The parts of the HTTP API's answers the pages read. The pages may not import src/api (the
 * edges meet only in src/app and the domain), so these name only what is read, each field as
 * the API's OpenAPI document (GET /api/v1/openapi.json) has it; the pages read them defensively
 * all the same, as an answer of another version may lack one.
 */

/** A number of `GET /api/v1/numbers`. */
export interface NumberAnswer {
  phoneNumberId: string;
  /** Messages per second; 0 = unpaced. */
  sendRate: number;
  portfolio?: string;
  isDefault?: boolean;
}

/** A refused row of a dry run; `row` is the data row (1 = the first row after the header). */
export interface RefusedRow {
  row: number;
  reason: RejectionReason;
  detail: string;
  phone?: string;
  column?: string;
}

export interface MessagingLimitAnswer {
  portfolio: string;
  limit: number | 'unlimited' | null;
  reached: number;
  recipients: number;
  over: number;
}

/** The plan of a dry run (`SendPlan`'s `plan`). */
export interface PlanAnswer {
  startsAt?: string | null;
  window?: string | null;
  finishesAt?: string | null;
  wouldExpire?: number;
  neverOpen?: number;
  timeZones?: { zones: string[]; rows: number; opensAt?: string | null }[];
  messagingLimit?: MessagingLimitAnswer | null;
  cost?: { total?: number; currency?: string } | null;
  costReason?: string | null;
  /** The rate card's file name; null when none is loaded, absent from an answer that does not say. */
  rateCard?: string | null | undefined;
}

/** `POST /api/v1/campaigns?dryRun=true`'s answer, and the created campaign's (`id`). */
export interface SummaryAnswer {
  id?: string | null;
  rows: number;
  valid: number;
  rejected: number;
  skipped: number;
  byReason?: Partial<Record<string, number>>;
  plan?: PlanAnswer;
  rejects?: RefusedRow[];
}

/** A refusal: RFC 9457's problem document with the service's code and every problem found. */
export interface ProblemDocument {
  code?: string;
  title?: string;
  detail?: string;
  problems?: (ProblemItem & { row?: number })[];
}
