import { defineLuaCommands, loadLuaCommand, type LuaCommand } from './lua-scripts.js';
import type { RedisClient } from './key-scope.js';

/**
 * The campaign ledger's Lua as commands: command name → its script (src/redis/lua/<name>.lua).
 * Each state change and its counters move in one script, so a crash or a duplicate job can
 * never leave the counters out of step with the rows. Each script's header gives its KEYS,
 * ARGV and answer (the loader takes the command's number of keys from there); shared
 * fragments are in src/redis/lua/includes; src/redis/lua/README.md maps the data model they
 * keep. They are read once, when this module loads, and defined on each connection the ledger
 * uses.
 */
export const LEDGER_SCRIPTS = {
  /** One chunk of ingested rows into the ledger and the backlog. */
  cwRecordIngested: 'record-ingested',
  /** The duplicate-send guard, read only (a dry run's ALREADY_SENT rows). */
  cwPriorSends: 'prior-sends',
  /** Pauses the campaign with the reason as the mark of an unfinished ingest. */
  cwIngestInterrupted: 'ingest-interrupted',
  /** A continued ingest lifts the pause its interruption left (only that one). */
  cwLiftIngestPause: 'lift-ingest-pause',
  /** The file has been read to its end; 1 when that completed the campaign. */
  cwFinishIngest: 'finish-ingest',
  /** Claims a worker's rows of one campaign for sending, each decided on its own. */
  cwClaim: 'claim',
  /** Applies a worker's answers, in order; feeds the error-spike brake. */
  cwSettle: 'settle',
  /** The in-doubt rule for rows whose confirm window passed (resend once, or unknown). */
  cwConfirmInDoubt: 'confirm-in-doubt',
  /** A code that needs a human parks the claimed row and pauses the campaign. */
  cwHalt: 'halt',
  /** The operator's pause. */
  cwPause: 'pause',
  /** Lifts a pause; the brake's window starts empty again. */
  cwResume: 'resume',
  /** Cancels a campaign, its backlog as a block. */
  cwCancel: 'cancel',
  /** A page of failed/unknown rows back to the backlog under new job numbers. */
  cwMarkForRetry: 'mark-for-retry',
  /** The feeder's atomic cursor, from a phone number's backlogs into its window. */
  cwFeed: 'feed',
  /** Moves the start of a campaign that has not started. */
  cwReschedule: 'reschedule',
  /** Meta's status webhooks (sent, delivered, read, failed) onto their rows. */
  cwApplyStatuses: 'apply-statuses',
  /** Users' messages: their 24-hour windows, replies on rows, opt-out keywords. */
  cwApplyInbound: 'apply-inbound',
  /** Marketing stop / resume, the newest event per user winning. */
  cwApplyPreferences: 'apply-preferences',
  /** Purge: the message-ID index entries that still point at a campaign's rows. */
  cwForgetWamids: 'forget-wamids',
} as const;

/** Each script loaded as a command, its number of keys read from its header. */
const LEDGER_COMMANDS: Readonly<Record<string, LuaCommand>> = Object.fromEntries(Object.entries(LEDGER_SCRIPTS).map(([command, script]) => [command, loadLuaCommand(script)]));

type Arg = string | number;

/** The ledger's commands as ioredis gives them once defined: KEYS first, then ARGV (each script's header). */
export interface LedgerCommands {
  cwRecordIngested(campaign: string, rows: string, sent: string, sentAt: string, pending: string, active: string, ...args: Arg[]): Promise<[string[], string[], number]>;
  cwPriorSends(campaign: string, sent: string, ...args: Arg[]): Promise<string[]>;
  cwIngestInterrupted(campaign: string, reason: string, clock: string): Promise<number>;
  cwLiftIngestPause(campaign: string, recent: string): Promise<number>;
  cwFinishIngest(campaign: string, clock: string): Promise<number>;
  cwClaim(campaign: string, rows: string, sent: string, sentAt: string, window: string, active: string, pending: string, ...args: Arg[]): Promise<string[]>;
  cwSettle(campaign: string, rows: string, wamids: string, recent: string, sent: string, sentAt: string, window: string, confirm: string, ...args: Arg[]): Promise<(string | number)[]>;
  cwConfirmInDoubt(confirm: string, seen: string, active: string, sent: string, sentAt: string, prefix: string, clock: string, limit: number): Promise<(string | number)[]>;
  cwHalt(campaign: string, rows: string, sent: string, sentAt: string, window: string, active: string, pending: string, ...args: Arg[]): Promise<[string, number, number?]>;
  cwPause(campaign: string, reason: string, clock: string): Promise<string>;
  cwResume(campaign: string, recent: string): Promise<string>;
  cwCancel(campaign: string, pending: string, active: string, campaignId: string, clock: string, reason: string): Promise<[string, number]>;
  cwReschedule(campaign: string, startsAt: number): Promise<string>;
  cwApplyStatuses(wamids: string, ...args: Arg[]): Promise<(string | number)[]>;
  cwApplyInbound(wamids: string, ...args: Arg[]): Promise<number[]>;
  cwApplyPreferences(optouts: string, ...args: Arg[]): Promise<number>;
  cwMarkForRetry(campaign: string, rows: string, pending: string, active: string, ...args: Arg[]): Promise<[number, number, number?, number?]>;
  cwFeed(active: string, window: string, reach: string, ...args: Arg[]): Promise<[string[], string[], string[], (string | number)[], number]>;
  cwForgetWamids(wamids: string, ...args: Arg[]): Promise<number>;
}

/** The connection with the ledger's commands defined on it. */
export function withLedgerCommands(redis: RedisClient): RedisClient & LedgerCommands {
  defineLuaCommands(redis, LEDGER_COMMANDS);
  return redis as RedisClient & LedgerCommands;
}

/** Values per row in a CLAIM answer: outcome, status or attempts, then phone, values JSON, header link when claimed. */
export const CLAIM_ANSWER_WIDTH = 5;

/** Arguments per row in a SETTLE call, after the SETTLE_SHARED_ARGS shared ones. */
export const SETTLE_ROW_ARGS = 6;
export const SETTLE_SHARED_ARGS = 5;

// settle.lua walks its rows with these numbers as literals: they must agree with the callers'.
const SETTLE_LOOP = `for i = ${SETTLE_SHARED_ARGS + 1}, #ARGV, ${SETTLE_ROW_ARGS} do`;
if (!(LEDGER_COMMANDS.cwSettle?.lua ?? '').split('\n').includes(SETTLE_LOOP)) {
  throw new Error(`src/redis/lua/settle.lua has no line "${SETTLE_LOOP}": its row loop is out of step with SETTLE_SHARED_ARGS and SETTLE_ROW_ARGS`);
}
