/**
 * Meta caps how many marketing templates a user gets from all businesses, and fails a send
 * past the cap with 131049. Meta asks to wait at least 24 hours before sending to that user
 * again, and penalises a business that resends sooner. So for this long after such a failure
 * no number of the business portfolio sends the user a MARKETING template (MARKETING_CAP_WAIT
 * at ingest and at each claim), and `campaign retry` holds the failed row back.
 */
export const MARKETING_CAP_WAIT_MS = 24 * 3_600_000;

/** Meta's code for a send the user's marketing cap refused. */
export const MARKETING_CAP_CODE = 131049;

/** An ISO 8601 time to the second, as the claim's detail (src/redis/lua/includes/iso-time.lua) writes it too. */
function isoSecond(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Why a MARKETING_CAP_WAIT row is not sent, and until when (stored on the row; includes/marketing-cap.lua words the claim's). */
export function marketingCapDetail(until: number): string {
  return (
    'Meta answered 131049 (its marketing cap for this user) to a recent MARKETING template of this business; ' +
    `no MARKETING template goes to them before ${isoSecond(until)}`
  );
}
