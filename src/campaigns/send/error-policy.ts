/**
 * One table deciding what a failed send means, keyed on Meta's `error.code` (and, for 100,
 * its `error_subcode`), never on message text: the "Worker action" column of reference §2.3.
 * A code that would hit every row of a campaign (wrong phone-number ID, template missing or
 * changed since pre-flight, template-level format errors) halts it at the first occurrence.
 * Unknown codes fall back on the HTTP status.
 */
export type ErrorAction =
  /** Same request again later, with exponential backoff and jitter; uses an attempt. */
  | 'retry'
  /** The phone number is over its throughput: every worker on it backs off; no attempt used. */
  | 'throttle-number'
  /** This recipient only (pair rate limit): delay this job; no attempt used, others go on. */
  | 'delay-recipient'
  /** The data or the recipient is wrong: the row fails now with Meta's code. */
  | 'fail-row'
  /** Nothing will succeed until a human acts (token, account, template). */
  | 'halt-campaign';

const BY_META_CODE: ReadonlyMap<number, ErrorAction> = new Map<number, ErrorAction>([
  // retry
  [1, 'retry'],
  [2, 'retry'],
  [131000, 'retry'],
  [131016, 'retry'],
  [133004, 'retry'],
  // throughput of the number / app / WABA; maintenance of the account (about a minute)
  [130429, 'throttle-number'],
  [131057, 'throttle-number'],
  [2494100, 'throttle-number'],
  [80007, 'throttle-number'],
  [4, 'throttle-number'],
  // pair rate limit
  [131056, 'delay-recipient'],
  // the row is wrong
  [100, 'fail-row'],
  [131008, 'fail-row'],
  [131009, 'fail-row'],
  [131026, 'fail-row'],
  [131047, 'fail-row'],
  [131051, 'fail-row'],
  [130472, 'fail-row'],
  [130497, 'fail-row'],
  [131050, 'fail-row'],
  [131049, 'fail-row'],
  [131021, 'fail-row'],
  [131030, 'fail-row'],
  [131052, 'fail-row'],
  [131053, 'fail-row'],
  [132005, 'fail-row'],
  [132018, 'fail-row'],
  [132068, 'fail-row'],
  [132069, 'fail-row'],
  [135000, 'fail-row'],
  // a human has to act
  [0, 'halt-campaign'],
  [190, 'halt-campaign'],
  [3, 'halt-campaign'],
  [10, 'halt-campaign'],
  [131031, 'halt-campaign'],
  [131042, 'halt-campaign'],
  [131048, 'halt-campaign'],
  [368, 'halt-campaign'],
  [104, 'halt-campaign'],
  [131005, 'halt-campaign'],
  [33, 'halt-campaign'],
  [2500, 'halt-campaign'],
  [131037, 'halt-campaign'],
  [131045, 'halt-campaign'],
  [131055, 'halt-campaign'],
  [131063, 'halt-campaign'],
  [131064, 'halt-campaign'],
  [133010, 'halt-campaign'],
  [134011, 'halt-campaign'],
  // the template, every row (after pre-flight passed: it changed since)
  [132000, 'halt-campaign'],
  [132001, 'halt-campaign'],
  [132007, 'halt-campaign'],
  [132012, 'halt-campaign'],
  [132015, 'halt-campaign'],
  [132016, 'halt-campaign'],
]);

/** Subcodes that change a code's meaning: 100 with 33 is a phone-number ID that does not exist or the token cannot reach. */
const BY_META_SUBCODE: ReadonlyMap<string, ErrorAction> = new Map<string, ErrorAction>([['100/33', 'halt-campaign']]);

export function actionForMetaCode(metaCode: number | undefined, httpStatus: number, subcode?: number): ErrorAction {
  const bySubcode = metaCode === undefined || subcode === undefined ? undefined : BY_META_SUBCODE.get(`${metaCode}/${subcode}`);
  if (bySubcode !== undefined) return bySubcode;
  const known = metaCode === undefined ? undefined : BY_META_CODE.get(metaCode);
  if (known !== undefined) return known;
  // Graph permission codes 200–299 mean a missing capability.
  if (metaCode !== undefined && metaCode >= 200 && metaCode <= 299) return 'halt-campaign';
  if (httpStatus === 429) return 'throttle-number';
  if (httpStatus >= 500) return 'retry';
  if (httpStatus === 401 || httpStatus === 403) return 'halt-campaign';
  return 'fail-row';
}

/** Transport failures (timeouts, refused or reset connections) are always worth another try. */
export const TRANSPORT_ACTION: ErrorAction = 'retry';
