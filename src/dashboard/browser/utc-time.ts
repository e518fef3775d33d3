import { time } from '../display-format.js';

/**
 * A time the pages' scripts get (ms since the epoch, or an ISO 8601 string from a JSON answer)
 * written as the server writes it (`time`: UTC with its zone), never in the browser's locale
 * format, which has no zone; `–` for what is not a time.
 */
export function utcTime(value: number | string): string {
  return time(new Date(value).getTime());
}
