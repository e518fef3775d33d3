import type { Logger } from '../../logging/logger.js';
import type { CampaignDefinition, CampaignStatus } from '../campaign.js';
import { actionForMetaCode } from '../send/error-policy.js';

/**
 * Account-, app- and system-level problems Meta reports by webhook: a `messages` change whose
 * value carries `errors[]` and no statuses (Meta's messages webhook reference). They name no
 * message and no row, only the phone number of the change, so they are kept where an operator
 * sees them (log, metrics, the campaigns page) and, when the error policy says nothing will
 * succeed until a human acts (a halting code, as a send answered with it would halt its
 * campaign), the unfinished campaigns of that number are paused with the reason. `campaign
 * resume` lifts it, as any pause.
 */
export interface AccountError {
  /** `metadata.phone_number_id` of the change ('' when Meta names none: then no campaign is paused). */
  phoneNumberId: string;
  /** Meta's error code, as a string (what the metrics label and the error policy read). */
  code: string;
  title: string;
  /** `error_data.details`, else `message`. */
  details: string;
  /** ms: the entry's time, else when it was read. */
  at: number;
}

/** Where the recent account errors are kept for the campaigns page (src/redis/metrics/redis-account-errors.ts). */
export interface AccountErrorLog {
  record(errors: readonly AccountError[]): Promise<void>;
}

/** What pausing a number's campaigns needs of the ledger. */
export interface AccountErrorLedger {
  listCampaigns(): Promise<string[]>;
  getCampaign(campaignId: string): Promise<Pick<CampaignDefinition, 'phoneNumberId'> | undefined>;
  status(campaignId: string): Promise<CampaignStatus | undefined>;
  pause(campaignId: string, reason: string): Promise<{ outcome: string }>;
}

/** The prefix of the pause reason, as TEMPLATE_PAUSED is for a template's: what a reader of `status` or the page sees first. */
export const ACCOUNT_ERROR_REASON = 'ACCOUNT_ERROR';

/** Whether a code means nothing sent from the number will succeed until a human acts (the send path's halting codes). */
export function haltsNumber(code: string): boolean {
  return /^\d+$/.test(code) && actionForMetaCode(Number(code), 0) === 'halt-campaign';
}

export function accountErrorReason(error: AccountError): string {
  const what = error.details !== '' && error.details !== error.title ? `${error.title}: ${error.details}` : error.title;
  return `${ACCOUNT_ERROR_REASON}: Meta reported ${error.code} for phone number ${error.phoneNumberId}: ${what}`.slice(0, 500);
}

/**
 * Records the errors, logs each, and pauses the unfinished campaigns of each number a halting
 * code names (once per number and batch: the first such error is the reason). Returns the
 * campaigns paused.
 */
export async function settleAccountErrors(
  deps: { ledger: AccountErrorLedger; log: AccountErrorLog; logger: Logger },
  errors: readonly AccountError[],
): Promise<{ campaignId: string; code: string }[]> {
  if (errors.length === 0) return [];
  await deps.log.record(errors);
  const halting = new Map<string, AccountError>();
  for (const error of errors) {
    const halts = haltsNumber(error.code);
    deps.logger.warn(
      { phoneNumberId: error.phoneNumberId, code: error.code, title: error.title, details: error.details, halts },
      'Meta reported an account error',
    );
    if (halts && error.phoneNumberId !== '' && !halting.has(error.phoneNumberId)) halting.set(error.phoneNumberId, error);
  }
  if (halting.size === 0) return [];
  const paused: { campaignId: string; code: string }[] = [];
  for (const campaignId of await deps.ledger.listCampaigns()) {
    const definition = await deps.ledger.getCampaign(campaignId);
    const error = definition === undefined ? undefined : halting.get(definition.phoneNumberId);
    if (error === undefined) continue;
    const status = await deps.ledger.status(campaignId);
    if (status === undefined || isFinished(status)) continue;
    const { outcome } = await deps.ledger.pause(campaignId, accountErrorReason(error));
    if (outcome === 'paused') {
      paused.push({ campaignId, code: error.code });
      deps.logger.warn({ campaignId, code: error.code }, `campaign paused: ${accountErrorReason(error)}`);
    }
  }
  return paused;
}

function isFinished(status: CampaignStatus): boolean {
  return status.state === 'completed' || status.state === 'cancelled';
}
