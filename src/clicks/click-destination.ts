import { boundedBadValue } from '../campaigns/ingest/bad-value.js';

/** A destination's length at most: what every browser and proxy takes in a Location header. */
export const MAX_DESTINATION_CHARS = 2048;

/**
 * A row's destination as `serve` redirects to it: an http(s) URL in the WHATWG parser's own
 * form (no space, line break or control character is left in it, so it is a safe Location
 * header), or undefined when the cell holds none.
 */
export function clickDestination(cell: string): string | undefined {
  let url: URL;
  try {
    url = new URL(cell);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return url.href.length <= MAX_DESTINATION_CHARS ? url.href : undefined;
}

/** Why a cell is no destination, naming its column (the value bounded: it may be anything the file held). */
export function clickUrlDetail(cell: string, column: string): string {
  if (cell === '') return `column "${column}" is empty: each row needs the destination of its tracked link (an http(s) URL)`;
  return (
    `column "${column}": "${boundedBadValue(cell)}" is not an http:// or https:// URL of at most ${MAX_DESTINATION_CHARS} ` +
    "characters (the destination of the row's tracked link)"
  );
}
