import { unknownObjectError, type GraphErrorSpec } from './graph-error.js';
import { SANDBOX_WABA_ID } from './webhook-payloads.js';

/**
 * The WhatsApp Business Account IDs whose templates the sandbox lists. Graph answers a path
 * ID that names no object it can load with 400 / 100, error_subcode 33, GraphMethodException
 * (reference cloud-api.md lines 196-197 and 257; stated there for the phone-number ID, as
 * Graph's generic object error), so a mistyped WHATSAPP_BUSINESS_ACCOUNT_ID shows up against
 * the sandbox, not first in production.
 */

/** The WABA the sandbox's webhooks name (entry[].id). */
export const DEFAULT_BUSINESS_ACCOUNT_IDS: readonly string[] = Object.freeze([SANDBOX_WABA_ID]);

const ID_PATTERN = /^\d{1,20}$/;

/** Throws RangeError for an empty list or an ID that is not Meta's all-digits form. */
export function checkBusinessAccountIds(ids: readonly string[]): ReadonlySet<string> {
  const bad = ids.find((id) => !ID_PATTERN.test(id));
  if (bad !== undefined) throw new RangeError(`businessAccountIds: "${bad}" is not a WhatsApp Business Account ID (digits only)`);
  if (ids.length === 0) throw new RangeError('businessAccountIds needs at least one WhatsApp Business Account ID');
  return new Set(ids);
}

/** A templates read naming a WABA the sandbox does not have. */
export function unknownBusinessAccountError(wabaId: string): GraphErrorSpec {
  return unknownObjectError(wabaId, 'get');
}
