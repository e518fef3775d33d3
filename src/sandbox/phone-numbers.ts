import { unknownObjectError, type GraphErrorSpec } from './graph-error.js';

/**
 * The business phone numbers the sandbox has, by phone-number ID: a send to any other ID in
 * the path is refused as Meta refuses it (reference §2.1, §7 item 1: 400 / 100 with
 * error_subcode 33, GraphMethodException, no error_data), so a mistyped
 * WHATSAPP_PHONE_NUMBER_ID shows up against the sandbox, not first in production.
 */

/** The ID the samples, docs, demo, docker-compose and tests use. */
export const DEFAULT_PHONE_NUMBER_IDS: readonly string[] = Object.freeze(['106540352242922']);

const ID_PATTERN = /^\d{1,20}$/;

/** A send or read naming a phone-number ID the sandbox does not have. */
export function unknownNumberError(phoneNumberId: string, method: 'get' | 'post' = 'post'): GraphErrorSpec {
  return unknownObjectError(phoneNumberId, method);
}

export class PhoneNumbers {
  private readonly ids: ReadonlySet<string>;
  /** Where inbound messages go when no number is named. */
  readonly first: string;

  /** Throws RangeError for an empty list or an ID that is not Meta's all-digits form. */
  constructor(ids: readonly string[]) {
    const bad = ids.find((id) => !ID_PATTERN.test(id));
    if (bad !== undefined) throw new RangeError(`phoneNumberIds: "${bad}" is not a phone-number ID (digits only)`);
    const first = ids[0];
    if (first === undefined) throw new RangeError('phoneNumberIds needs at least one phone-number ID');
    this.ids = new Set(ids);
    this.first = first;
  }

  has(phoneNumberId: string): boolean {
    return this.ids.has(phoneNumberId);
  }

  get all(): string[] {
    return [...this.ids];
  }
}
