/**
 * A WhatsApp Flow's answer as a campaign row keeps it. A user who completes a Flow opened from
 * one of our templates answers with an inbound `interactive` message of type `nfm_reply`
 * (Meta's flows/guides/receiveflowresponse): `nfm_reply.response_json` is the Flow's data, a
 * JSON object serialised as a string (`{"flow_token": …, <the Flow's fields>}`), with
 * `name: "flow"` and `body: "Sent"`.
 *
 * The text is kept as Meta sent it, so an operator's script reads exactly what Meta said. Rows
 * stay for the retention period and a campaign may have a million of them, so it is bounded to
 * FLOW_RESPONSE_MAX_BYTES (UTF-8): a longer answer that parses as a JSON object is first kept
 * without the whitespace between its tokens (the same JSON, every value as written), and only
 * what is still too long is cut, at a character boundary (it is then no longer valid JSON).
 *
 * A response_json that is not a JSON object is kept too, bounded the same way: Meta's page
 * promises an object, but the user did complete the Flow, and that fact (a reply: the funnel,
 * `retarget --status not-replied`) matters more than the shape of what came. The report writes
 * it through the spreadsheet-safe writer, as every cell, so whatever it holds cannot act as a
 * formula. An empty or missing response_json records no answer.
 */
export const FLOW_RESPONSE_MAX_BYTES = 4096;

/** The bounded response_json of an `interactive` object that is an `nfm_reply`; undefined for any other. */
export function flowResponseOf(interactive: Readonly<Record<string, unknown>>): string | undefined {
  const reply = interactive.nfm_reply;
  if (interactive.type !== 'nfm_reply' || typeof reply !== 'object' || reply === null) return undefined;
  const text = (reply as Record<string, unknown>).response_json;
  if (typeof text !== 'string' || text === '') return undefined;
  return boundedFlowResponse(text);
}

/** The text itself when it fits; else its JSON without whitespace when it is a JSON object and that fits; else cut. */
export function boundedFlowResponse(text: string): string {
  if (Buffer.byteLength(text, 'utf8') <= FLOW_RESPONSE_MAX_BYTES) return text;
  const compact = isJsonObject(text) ? withoutWhitespace(text) : text;
  return cutUtf8(compact, FLOW_RESPONSE_MAX_BYTES);
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * Valid JSON without the whitespace between its tokens. Done on the text rather than by
 * JSON.stringify(JSON.parse(…)), which would rewrite numbers (a 20-digit ID loses digits).
 */
function withoutWhitespace(json: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (const char of json) {
    if (inString) {
      out += char;
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
      out += char;
    } else if (char !== ' ' && char !== '\t' && char !== '\n' && char !== '\r') {
      out += char;
    }
  }
  return out;
}

/** At most `max` bytes of UTF-8, never ending inside a character. */
function cutUtf8(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return text;
  let end = max;
  // A continuation byte (10xxxxxx) at the cut means its character started before it: cut before that character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
