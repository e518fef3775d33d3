import { z } from 'zod';
import { newWamid } from './ids.js';
import { DEFAULT_NAME } from './inbound-messages.js';
import { phoneDigits } from './phone-digits.js';
import { renewSandboxUserId } from './user-ids.js';
import type { UserIdChange } from './webhook-payloads.js';

/**
 * `POST /_sandbox/user-id-change`: Meta issuing a user a new business-scoped user ID. Later
 * statuses and messages carry the new one; the `user_changed_user_id` system message says so.
 */
export const userIdChangeRequestSchema = z.strictObject({
  from: z.string().refine((value) => phoneDigits(value) !== undefined, 'must be a phone number (7–15 digits)'),
  /** Default: the sandbox's first number. */
  phoneNumberId: z.string().optional(),
  /** The profile name the message's body names (default "Sandbox user"). */
  name: z.string().min(1).max(256).optional(),
});

export type UserIdChangeRequest = z.infer<typeof userIdChangeRequestSchema>;

/** Issues the user their new ID and describes the change; `phoneNumberId` already resolved. */
export function userIdChange(request: UserIdChangeRequest, phoneNumberId: string, at: number): UserIdChange {
  const waId = phoneDigits(request.from) ?? '';
  const { previous, current } = renewSandboxUserId(waId);
  return {
    phoneNumberId,
    name: request.name ?? DEFAULT_NAME,
    previousUserId: previous,
    userId: current,
    id: newWamid(waId, 'received'),
    at,
  };
}
