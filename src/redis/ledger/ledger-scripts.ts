import { defineLuaCommandsLazily, loadLuaCommand, type LuaCommand } from '../lua-scripts.js';
import type { RedisClient } from '../key-scope.js';

/**
 * The ledger's Lua as commands: command → its script (lua/<name>.lua, its header giving KEYS,
 * ARGV and answer; lua/README.md maps the data model). Each state change and its counters
 * move in one script, so no crash leaves them out of step. Each is read at its first call.
 */
export const LEDGER_SCRIPTS = {
  cwRecordIngested: 'record-ingested',
  cwPriorSends: 'prior-sends',
  cwIngestInterrupted: 'ingest-interrupted',
  cwLiftIngestPause: 'lift-ingest-pause',
  cwFinishIngest: 'finish-ingest',
  cwClaim: 'claim',
  cwSettle: 'settle',
  cwConfirmInDoubt: 'confirm-in-doubt',
  cwHalt: 'halt',
  cwPause: 'pause',
  cwResume: 'resume',
  cwTemplateStatus: 'template-status',
  cwTemplateCategory: 'template-category',
  cwCancel: 'cancel',
  cwMarkForRetry: 'mark-for-retry',
  cwFeed: 'feed',
  cwReachReserve: 'reach-reserve',
  cwReachCommit: 'reach-commit',
  cwReschedule: 'reschedule',
  cwApplyStatuses: 'apply-statuses',
  cwApplyInbound: 'apply-inbound',
  cwApplyOptOuts: 'apply-optouts',
  cwApplyMarketingCaps: 'apply-marketing-caps',
  cwRecordMarketingCap: 'record-marketing-cap',
  cwForgetWamids: 'forget-wamids',
  cwWhereWamids: 'where-wamids',
} as const;

/** How to load each script as a command, its number of keys read from its header; settle's is checked as it loads. */
const LEDGER_COMMANDS: Readonly<Record<string, () => LuaCommand>> = Object.fromEntries(
  Object.entries(LEDGER_SCRIPTS).map(([command, script]) => [
    command,
    () => (script === LEDGER_SCRIPTS.cwSettle ? checkedSettle(loadLuaCommand(script)) : loadLuaCommand(script)),
  ]),
);

type Arg = string | number;

/** The ledger's commands as ioredis gives them once defined: KEYS first, then ARGV (each script's header). */
export interface LedgerCommands {
  cwRecordIngested(
    campaign: string,
    rows: string,
    sent: string,
    sentAt: string,
    pending: string,
    active: string,
    ...args: Arg[]
  ): Promise<[string[], string[], number]>;
  cwPriorSends(campaign: string, sent: string, ...args: Arg[]): Promise<string[]>;
  cwIngestInterrupted(campaign: string, reason: string, clock: string): Promise<number>;
  cwLiftIngestPause(campaign: string, recent: string): Promise<number>;
  cwFinishIngest(campaign: string, clock: string): Promise<number>;
  cwClaim(
    campaign: string,
    rows: string,
    sent: string,
    sentAt: string,
    window: string,
    active: string,
    pending: string,
    optouts: string,
    caps: string,
    ...args: Arg[]
  ): Promise<string[]>;
  cwSettle(
    campaign: string,
    rows: string,
    wamids: string,
    recent: string,
    sent: string,
    sentAt: string,
    window: string,
    confirm: string,
    ...args: Arg[]
  ): Promise<(string | number)[]>;
  cwConfirmInDoubt(
    confirm: string,
    seen: string,
    active: string,
    sent: string,
    sentAt: string,
    prefix: string,
    clock: string,
    limit: number,
  ): Promise<(string | number)[]>;
  cwHalt(
    campaign: string,
    rows: string,
    sent: string,
    sentAt: string,
    window: string,
    active: string,
    pending: string,
    ...args: Arg[]
  ): Promise<[string, number, number?]>;
  cwPause(campaign: string, reason: string, clock: string): Promise<string>;
  cwResume(campaign: string, recent: string): Promise<string>;
  cwTemplateStatus(campaign: string, recent: string, ...args: Arg[]): Promise<string>;
  cwTemplateCategory(campaign: string, ...args: Arg[]): Promise<string>;
  cwCancel(campaign: string, pending: string, active: string, campaignId: string, clock: string, reason: string): Promise<[string, number]>;
  cwReschedule(campaign: string, startsAt: number): Promise<string>;
  cwApplyStatuses(wamids: string, ...args: Arg[]): Promise<(string | number)[]>;
  cwApplyInbound(wamids: string, ...args: Arg[]): Promise<number[]>;
  cwApplyOptOuts(optouts: string, prefs: string, ...args: Arg[]): Promise<number[]>;
  cwApplyMarketingCaps(caps: string, clock: string, ...args: Arg[]): Promise<number[]>;
  cwRecordMarketingCap(campaign: string, caps: string, clock: string, waitMs: number, phone: string): Promise<number>;
  cwMarkForRetry(
    campaign: string,
    rows: string,
    pending: string,
    active: string,
    optouts: string,
    ...args: Arg[]
  ): Promise<[number, number, number?, number?, number?, number?, number?]>;
  cwFeed(
    active: string,
    window: string,
    reach: string,
    pending: string,
    ...args: Arg[]
  ): Promise<[string[], string[], string[], string[], number, string[]]>;
  cwReachReserve(reach: string, leases: string, expiry: string, limit: string, ...args: Arg[]): Promise<[number, number]>;
  cwReachCommit(reach: string, leases: string, expiry: string, ...args: Arg[]): Promise<[number, number, string[]]>;
  cwForgetWamids(wamids: string, ...args: Arg[]): Promise<number>;
  cwWhereWamids(wamids: string, ...wamidList: string[]): Promise<string[]>;
}

/** The connection with the ledger's commands defined on it. */
export function withLedgerCommands(redis: RedisClient): RedisClient & LedgerCommands {
  defineLuaCommandsLazily(redis, LEDGER_COMMANDS);
  return redis as RedisClient & LedgerCommands;
}

/** Values per row in a CLAIM answer: outcome, status or attempts, then phone, values JSON, header link when claimed. */
export const CLAIM_ANSWER_WIDTH = 5;

/** Arguments per row in a SETTLE call, after the SETTLE_SHARED_ARGS shared ones. */
export const SETTLE_ROW_ARGS = 6;
export const SETTLE_SHARED_ARGS = 6;

// settle.lua walks its rows with these numbers as literals: they must agree with the callers'.
function checkedSettle(settle: LuaCommand): LuaCommand {
  const loop = `for i = ${SETTLE_SHARED_ARGS + 1}, #ARGV, ${SETTLE_ROW_ARGS} do`;
  if (!settle.lua.split('\n').includes(loop)) {
    throw new Error(
      `src/redis/lua/settle.lua has no line "${loop}": its row loop is out of step with SETTLE_SHARED_ARGS and SETTLE_ROW_ARGS`,
    );
  }
  return settle;
}
