/**
 * A regular expression (without anchors) of the whole numbers from `min` to `max`, written in
 * decimal with any leading zeros: a range the server checks on a number, stated as the JSON
 * Schema pattern of the text that carries it (`36h` → 36). Made from the bounds, so the
 * pattern and the check share one pair of numbers.
 */
export function rangePattern(min: number, max: number): string {
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) throw new Error(`no range ${min}..${max}`);
  return `0*(?:${splitRange(min, max)
    .map(([low, high]) => spanPattern(String(low), String(high)))
    .join('|')})`;
}

/** The range cut where the number of digits changes and at round numbers, so each part is one digit pattern. */
function splitRange(min: number, max: number): [number, number][] {
  const parts: [number, number][] = [];
  let low = min;
  while (low <= max) {
    // The largest step from `low` that keeps every digit but the varying tail free: 10^k - 1 past a multiple of 10^k.
    let step = 1;
    while (low % (step * 10) === 0 && low + step * 10 - 1 <= max) step *= 10;
    let high = low + step - 1;
    // Then as many such steps as fit before the next digit above the tail must change.
    while (high + step <= max && Math.floor((high + step) / (step * 10)) === Math.floor(low / (step * 10))) high += step;
    parts.push([low, high]);
    low = high + 1;
  }
  return parts;
}

/** Equal-length bounds whose digits differ only in a head digit range and a free tail: `120`–`159` → `1[2-5]\d`. */
function spanPattern(low: string, high: string): string {
  let pattern = '';
  for (let i = 0; i < low.length; i++) {
    const [a, b] = [low[i]!, high[i]!];
    if (a === b) pattern += a;
    else if (a === '0' && b === '9') pattern += '\\d';
    else pattern += `[${a}-${b}]`;
  }
  return pattern;
}
