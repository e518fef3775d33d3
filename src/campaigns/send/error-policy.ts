/**
 * One table deciding what a failed send means, keyed on Meta's `error.code` (reference §2.3),
 * never on message text. Unknown codes fall back on the HTTP status.
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
  [131057, 'retry'],
  // throughput of the number / app / WABA
  [130429, 'throttle-number'],
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
  [132000, 'fail-row'],
  [132001, 'fail-row'],
  [132005, 'fail-row'],
  [132007, 'fail-row'],
  [132012, 'fail-row'],
  [132018, 'fail-row'],
  // a human has to act
  [0, 'halt-campaign'],
  [190, 'halt-campaign'],
  [3, 'halt-campaign'],
  [10, 'halt-campaign'],
  [131031, 'halt-campaign'],
  [131042, 'halt-campaign'],
  [131048, 'halt-campaign'],
  [368, 'halt-campaign'],
  [132015, 'halt-campaign'],
  [132016, 'halt-campaign'],
]);

export function actionForMetaCode(metaCode: number | undefined, httpStatus: number): ErrorAction {
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
