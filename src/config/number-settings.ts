/**
 * A setting given per phone number, `ID:value,ID2:value` (SEND_RATES, PORTFOLIOS): the
 * value for each listed number, or a sentence saying what is wrong and how to write it.
 * `allowed` parses one value (undefined = not allowed), `example` shows the form.
 */
export function parseNumberSettings<T>(
  raw: string,
  allowed: (value: string) => T | undefined,
  example: string,
): ReadonlyMap<string, T> | string {
  const settings = new Map<string, T>();
  for (const entry of raw.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const match = /^(\d+)\s*:\s*(\S+)$/.exec(entry);
    const value = match === null ? undefined : allowed(match[2] ?? '');
    // The entry is quoted cut short: a pasted secret must not land whole in an error.
    if (match === null || value === undefined) return `"${entry.slice(0, 40)}" is not phone-number-ID:value; write it as ${example}`;
    const id = match[1] ?? '';
    if (settings.has(id)) return `names ${id} twice; give each phone-number ID once (${example})`;
    settings.set(id, value);
  }
  return settings;
}

/** A whole number >= 0 written in digits, or undefined. */
export function wholeNumberText(value: string): number | undefined {
  return /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}

/** Meta's messaging limit of a number: unique users per moving 24 h, or none. */
export type MessagingLimit = number | 'unlimited';

/** `10000` or `unlimited` (any case), or undefined. */
export function messagingLimitText(value: string): MessagingLimit | undefined {
  if (/^unlimited$/i.test(value)) return 'unlimited';
  const limit = wholeNumberText(value);
  return limit === undefined || limit === 0 ? undefined : limit;
}
