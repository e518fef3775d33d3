import { loadLuaInclude, loadLuaScript } from './lua-scripts.js';

/**
 * Lua for the campaign ledger. Each state change and its counters move in one script, so a
 * crash or a duplicate job can never leave the counters out of step with the rows.
 * The scripts live in src/redis/lua, one per file, each with a header giving its KEYS, ARGV
 * and answer; shared fragments in src/redis/lua/includes. src/redis/lua/README.md maps the
 * data model they keep: the row records, the campaign hash, the duplicate-send guard and the
 * backlog. They are read once, when this module loads; src/redis/redis-ledger.ts defines
 * them as commands (numberOfKeys there matches each header's KEYS).
 */

/** The final statuses, as a Lua table: includes/final.lua. */
export const FINAL = loadLuaInclude('final');

/** record-ingested.lua: one chunk of ingested rows into the ledger and the backlog. */
export const RECORD_INGESTED = loadLuaScript('record-ingested');

/** prior-sends.lua: the duplicate-send guard, read only (a dry run's ALREADY_SENT rows). */
export const PRIOR_SENDS = loadLuaScript('prior-sends');

/** finish-ingest.lua: the file has been read to its end; 1 when that completed the campaign. */
export const FINISH_INGEST = loadLuaScript('finish-ingest');

/** lift-ingest-pause.lua: a continued ingest lifts the pause its interruption left (only that one). */
export const LIFT_INGEST_PAUSE = loadLuaScript('lift-ingest-pause');

/** Values per row in a CLAIM answer: outcome, status or attempts, then phone, values JSON, header link when claimed. */
export const CLAIM_ANSWER_WIDTH = 5;

/** claim.lua: claims a worker's rows of one campaign for sending, each decided on its own. */
export const CLAIM = loadLuaScript('claim');

/** Arguments per row in a SETTLE call, after the SETTLE_SHARED_ARGS shared ones. */
export const SETTLE_ROW_ARGS = 6;
export const SETTLE_SHARED_ARGS = 5;

/** settle.lua: applies a worker's answers, in order; feeds the error-spike brake. */
export const SETTLE = loadLuaScript('settle');

// settle.lua walks its rows with these numbers as literals: they must agree with the callers'.
const SETTLE_LOOP = `for i = ${SETTLE_SHARED_ARGS + 1}, #ARGV, ${SETTLE_ROW_ARGS} do`;
if (!SETTLE.split('\n').includes(SETTLE_LOOP)) {
  throw new Error(`src/redis/lua/settle.lua has no line "${SETTLE_LOOP}": its row loop is out of step with SETTLE_SHARED_ARGS and SETTLE_ROW_ARGS`);
}

/** confirm-in-doubt.lua: the in-doubt rule for rows whose confirm window passed (resend once, or unknown). */
export const CONFIRM_IN_DOUBT = loadLuaScript('confirm-in-doubt');

/** halt.lua: a code that needs a human parks the claimed row and pauses the campaign. */
export const HALT = loadLuaScript('halt');

/** pause.lua: the operator's pause. */
export const PAUSE = loadLuaScript('pause');

/** resume.lua: lifts a pause; the brake's window starts empty again. */
export const RESUME = loadLuaScript('resume');

/** cancel.lua: cancels a campaign, its backlog as a block. */
export const CANCEL = loadLuaScript('cancel');

/** ingest-interrupted.lua: pauses the campaign with the reason as the mark of an unfinished ingest. */
export const INGEST_INTERRUPTED = loadLuaScript('ingest-interrupted');

/** mark-for-retry.lua: a page of failed/unknown rows back to the backlog under new job numbers. */
export const MARK_FOR_RETRY = loadLuaScript('mark-for-retry');

/** feed.lua: the feeder's atomic cursor, from a phone number's backlogs into its window. */
export const FEED = loadLuaScript('feed');

/** apply-statuses.lua: Meta's status webhooks (sent, delivered, read, failed) onto their rows. */
export const APPLY_STATUSES = loadLuaScript('apply-statuses');

/** apply-inbound.lua: users' messages: their 24-hour windows, replies on rows, opt-out keywords. */
export const APPLY_INBOUND = loadLuaScript('apply-inbound');

/** apply-preferences.lua: marketing stop / resume, the newest event per user winning. */
export const APPLY_PREFERENCES = loadLuaScript('apply-preferences');

/** reschedule.lua: moves the start of a campaign that has not started. */
export const RESCHEDULE = loadLuaScript('reschedule');
