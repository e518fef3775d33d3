import type { AsyncFailure } from './async-failures.js';

/**
 * Why a send addressed to a user ID the sandbox never issued (user-ids.ts) is reported
 * `failed`. Meta's pages do not say how a send to an unknown business-scoped user ID is
 * answered, so the sandbox answers it as it answers an undeliverable recipient: accepted with
 * a wamid, then `failed` 131026 (Message Undeliverable) by status webhook, as Meta reports a
 * phone that is not on WhatsApp.
 */
export interface UnknownUserFailure extends Omit<AsyncFailure, 'code' | 'cause'> {
  code: 131026;
  cause: 'unknownUserId';
}

export function unknownUserFailure(userId: string): UnknownUserFailure {
  return {
    code: 131026,
    details: `Message Undeliverable. No WhatsApp user has the business-scoped user ID ${userId}.`,
    cause: 'unknownUserId',
  };
}
