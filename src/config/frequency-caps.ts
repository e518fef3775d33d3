/**
 * FREQUENCY_CAPS: how many messages of a kind one recipient may get from a business portfolio
 * within a moving window, across its campaigns and numbers (`marketing:1/24h,utility:5/24h`).
 * Meta caps marketing per person across all businesses (131049) and rates quality by how often
 * people hear from a sender; this is the sender's own, stricter limit, checked at each row's claim.
 */
export type CappedKind = 'marketing' | 'utility' | 'authentication' | 'text' | 'any';

export interface FrequencyCap {
  kind: CappedKind;
  /** Messages allowed within the window. */
  count: number;
  windowMs: number;
  /** As written (`marketing:1/24h`): what a FREQUENCY_CAPPED row's detail names. */
  text: string;
}

const KINDS: readonly CappedKind[] = ['marketing', 'utility', 'authentication', 'text', 'any'];
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const CAP = /^([a-z]+):(\d+)\/(\d+)([mhd])$/;
/** More than anyone is sent in a window: a larger count is a typo. */
const MAX_COUNT = 1_000_000;
/** The longest window a cap may have: what the portfolio's record of sends keeps. */
export const MAX_CAP_WINDOW_MS = 90 * UNIT_MS.d;

/** The caps, or a sentence saying which entry is wrong and how to write it. */
export function parseFrequencyCaps(text: string): FrequencyCap[] | string {
  const caps: FrequencyCap[] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    const match = CAP.exec(entry);
    const kind = match?.[1] as CappedKind | undefined;
    if (match === null || kind === undefined || !KINDS.includes(kind)) {
      return (
        `"${raw.trim()}": write KIND:COUNT/WINDOW, KIND one of ${KINDS.join(', ')}, ` +
        'WINDOW in m, h or d (marketing:1/24h,marketing:3/7d)'
      );
    }
    const count = Number(match[2]);
    const windowMs = Number(match[3]) * UNIT_MS[match[4] as keyof typeof UNIT_MS];
    if (count < 1) return `"${raw.trim()}": the count must be at least 1 (a kind that must never be sent is not a cap)`;
    if (count > MAX_COUNT) return `"${raw.trim()}": the count must be at most ${MAX_COUNT.toLocaleString('en-US')}`;
    if (windowMs <= 0 || windowMs > MAX_CAP_WINDOW_MS) return `"${raw.trim()}": the window must be between 1m and 90d`;
    caps.push({ kind, count, windowMs, text: `${kind}:${count}/${match[3]}${match[4]}` });
  }
  return caps;
}

/** The capped kind a campaign's messages count as: its template's category, or `text`. */
export function cappedKindOf(definition: { text?: unknown; category?: string | undefined }): Exclude<CappedKind, 'any'> | undefined {
  if (definition.text !== undefined) return 'text';
  const category = definition.category?.toLowerCase();
  return category === 'marketing' || category === 'utility' || category === 'authentication' ? category : undefined;
}
