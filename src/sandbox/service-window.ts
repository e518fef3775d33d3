import { phoneDigits } from './phone-digits.js';

/**
 * 24 h customer-service windows (reference §1.3): free-form text may be sent to a user only
 * within 24 h of that user's last inbound message; otherwise Meta answers 131047. The
 * sandbox has no real users, so windows open when a test or the demo says a user wrote in.
 */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

export class ServiceWindows {
  private readonly openedAt = new Map<string, number>();

  /** Records an inbound message from `phone` at `at`; returns the recipient's digits. */
  open(phone: string, at: number): string {
    const waId = phoneDigits(phone);
    if (waId === undefined) throw new RangeError(`Not a phone number: ${phone}`);
    // The last call wins, so a test can also set a window that has already expired.
    this.openedAt.set(waId, at);
    return waId;
  }

  isOpen(waId: string, now: number): boolean {
    const at = this.openedAt.get(waId);
    return at !== undefined && now >= at && now - at < SERVICE_WINDOW_MS;
  }

  reset(): void {
    this.openedAt.clear();
  }
}
