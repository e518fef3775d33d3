import { defineLuaCommandsLazily, loadLuaCommand, type LuaCommand } from '../lua-scripts.js';
import type { RedisClient } from '../key-scope.js';
import { onConnection, type OnConnection } from '../on-connection.js';

type Arg = string | number;

/**
 * Arguments repeated per item (a row, a status, an event), flat: `Each<[row: number, job: number]>`
 * is row, job, row, job, …; the labels are the names the script's header gives them.
 */
export type Each<Item extends readonly Arg[]> = Item[number][];

/**
 * The ledger's commands as ioredis gives them once defined. Each runs one script of
 * src/redis/lua (LEDGER_SCRIPTS below); its parameters are the script's KEYS, then its ARGV,
 * with the names and in the order of the script's header (`campaign-id` is `campaignId`), the
 * arguments repeated per item last, as `Each<[…]>`. The header is the wiring's source:
 * test/unit/ledger-wiring.test.ts fails when a signature here and its header disagree. The
 * KEYS of a call come from one function per key set (script-keys.ts); the answers are the
 * headers' `Output`.
 */
export interface LedgerCommands {
  cwRecordIngested(
    campaign: string,
    rows: string,
    sent: string,
    pending: string,
    active: string,
    mark: string,
    chunk: string,
    campaignId: string,
    clock: string,
    duplicateWindow: number,
    markMs: number,
  ): Promise<[string[], string[], number]>;
  cwPriorSends(
    campaign: string,
    sent: string,
    campaignId: string,
    clock: string,
    duplicateWindow: number,
    ...rows: Each<[row: string, fingerprint: string]>
  ): Promise<string[]>;
  cwIngestInterrupted(campaign: string, reason: string, clock: string): Promise<number>;
  cwLiftIngestPause(campaign: string, recent: string): Promise<number>;
  cwFinishIngest(campaign: string, clock: string): Promise<number>;
  cwClaim(
    campaign: string,
    rows: string,
    sent: string,
    window: string,
    active: string,
    pending: string,
    optouts: string,
    caps: string,
    clock: string,
    duplicateWindow: number,
    campaignId: string,
    ...claims: Each<[row: number, job: number, group: string]>
  ): Promise<string[]>;
  cwSettle(
    campaign: string,
    rows: string,
    wamids: string,
    recent: string,
    sent: string,
    window: string,
    confirm: string,
    capped: string,
    campaignId: string,
    clock: string,
    brakeWindow: number,
    brakeShare: number,
    confirmWindow: number,
    heldPatience: number,
    ...answers: Each<
      [row: number, status: string, wamid: string, code: string, detail: string, job: number, wamidDigits: string, wamidM: string]
    >
  ): Promise<(string | number)[]>;
  cwRetryCapped(capped: string, active: string, optouts: string, scope: string, clock: string, limit: number): Promise<number[]>;
  cwConfirmInDoubt(
    confirm: string,
    seen: string,
    active: string,
    sent: string,
    scope: string,
    clock: string,
    limit: number,
  ): Promise<(string | number)[]>;
  cwHalt(
    campaign: string,
    rows: string,
    sent: string,
    window: string,
    active: string,
    pending: string,
    row: number,
    job: number,
    code: string,
    detail: string,
    clock: string,
    campaignId: string,
    templateHeld: string,
  ): Promise<[string, number, number?]>;
  cwPause(campaign: string, reason: string, clock: string): Promise<string>;
  cwResume(campaign: string, recent: string): Promise<string>;
  cwTemplateStatus(
    campaign: string,
    recent: string,
    event: string,
    name: string,
    language: string,
    detail: string,
    clock: string,
  ): Promise<string>;
  cwTemplateCategory(campaign: string, name: string, language: string, category: string): Promise<string>;
  cwCancel(campaign: string, pending: string, active: string, campaignId: string, clock: string, reason: string): Promise<[string, number]>;
  cwReschedule(campaign: string, startsAt: number): Promise<string>;
  cwApplyStatuses(
    wamids: string,
    scope: string,
    clock: string,
    brakeWindow: number,
    brakeShare: number,
    capWait: number,
    ...statuses: Each<
      [
        wamid: string,
        kind: string,
        at: number,
        callbackData: string,
        code: string,
        detail: string,
        phoneNumberId: string,
        pricing: string,
        wamidDigits: string,
        wamidM: string,
      ]
    >
  ): Promise<(string | number)[]>;
  cwApplyInbound(
    wamids: string,
    scope: string,
    clock: string,
    window: number,
    ...messages: Each<
      [phoneNumberId: string, waId: string, at: number, replyTo: string, reply: string, flowResponse: string, optOut: string]
    >
  ): Promise<number[]>;
  cwApplyOptOuts(
    optouts: string,
    prefs: string,
    ...events: Each<[phone: string, action: string, at: number, source: string]>
  ): Promise<number[]>;
  cwApplyMarketingCaps(caps: string, clock: string, ...capped: Each<[phone: string, until: number]>): Promise<number[]>;
  cwRecordMarketingCap(campaign: string, caps: string, clock: string, wait: number, phone: string): Promise<number>;
  cwMarkForRetry(
    campaign: string,
    rows: string,
    pending: string,
    active: string,
    optouts: string,
    fromRow: number,
    toRow: number,
    codes: string,
    failed: string,
    unknown: string,
    campaignId: string,
    clock: string,
    capHold: number,
    usAreaCodes: string,
  ): Promise<[number, number, number?, number?, number?, number?, number?]>;
  cwFeed(
    active: string,
    window: string,
    reach: string,
    pending: string,
    groups: string,
    groupRows: string,
    scope: string,
    clock: string,
    windowSize: number,
    minBatch: number,
    refreshAfter: number,
    refreshMost: number,
    openLanes: string,
    places: number,
    phoneNumberId: string,
    leaseId: string,
    staleAfter: number,
    mostRows?: Arg,
    groupSize?: number,
  ): Promise<[string[], string[], string[], string[], number, string[], string[]]>;
  cwGroupDone(window: string, groups: string, groupRows: string, group: string): Promise<number>;
  cwReachReserve(
    reach: string,
    leases: string,
    expiry: string,
    limit: string,
    clock: string,
    leaseId: string,
    asked: number,
    lifetime: number,
    fixedLimit: string,
  ): Promise<[number, number]>;
  cwReachCommit(
    reach: string,
    leases: string,
    expiry: string,
    clock: string,
    leaseId: string,
    record: string,
    ...heldBack: Each<[waId: string]>
  ): Promise<[number, number, string[]]>;
  cwForgetWamids(wamids: string, campaignId: string, ...rows: Each<[wamid: string, row: Arg]>): Promise<number>;
  cwWhereWamids(wamids: string, ...messages: Each<[wamid: string]>): Promise<string[]>;
}

/** Each command's script, src/redis/lua/<script>.lua. Each state change and its counters move in one script. */
export const LEDGER_SCRIPTS: { readonly [Command in keyof LedgerCommands]: string } = {
  cwRecordIngested: 'record-ingested',
  cwPriorSends: 'prior-sends',
  cwIngestInterrupted: 'ingest-interrupted',
  cwLiftIngestPause: 'lift-ingest-pause',
  cwFinishIngest: 'finish-ingest',
  cwClaim: 'claim',
  cwSettle: 'settle',
  cwConfirmInDoubt: 'confirm-in-doubt',
  cwRetryCapped: 'retry-capped',
  cwHalt: 'halt',
  cwPause: 'pause',
  cwResume: 'resume',
  cwTemplateStatus: 'template-status',
  cwTemplateCategory: 'template-category',
  cwCancel: 'cancel',
  cwMarkForRetry: 'mark-for-retry',
  cwFeed: 'feed',
  cwGroupDone: 'group-done',
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
};

/** How to load each script as a command, its number of keys read from its header; settle's is checked as it loads. */
const LEDGER_COMMANDS: Readonly<Record<string, () => LuaCommand>> = Object.fromEntries(
  Object.entries(LEDGER_SCRIPTS).map(([command, script]) => [
    command,
    () => (script === LEDGER_SCRIPTS.cwSettle ? checkedSettle(loadLuaCommand(script)) : loadLuaCommand(script)),
  ]),
);

/** The connection with the ledger's commands defined on it; each script is read at its command's first call. */
export function withLedgerCommands(redis: RedisClient): RedisClient & LedgerCommands {
  defineLuaCommandsLazily(redis, LEDGER_COMMANDS);
  return redis as RedisClient & LedgerCommands;
}

/** Values per row in a CLAIM answer: outcome, status or attempts, then phone, values JSON, header link when claimed. */
export const CLAIM_ANSWER_WIDTH = 5;

/** Arguments per row in a SETTLE call, after the SETTLE_SHARED_ARGS shared ones. */
export const SETTLE_ROW_ARGS = 8;
export const SETTLE_SHARED_ARGS = 6;

// settle.lua walks its rows with these numbers as literals: they must agree with the callers'.
function checkedSettle(settle: LuaCommand): LuaCommand {
  const loop = `for i = ${SETTLE_SHARED_ARGS + 1}, #ARGV, ${SETTLE_ROW_ARGS} do`;
  if (!settle.lua.split('\n').some((line) => line.trim() === loop)) {
    throw new Error(
      `src/redis/lua/settle.lua has no line "${loop}": its row loop is out of step with SETTLE_SHARED_ARGS and SETTLE_ROW_ARGS`,
    );
  }
  return settle;
}

/**
 * One ledger script with the CLIENT ID of the connection it ran on (onConnection), so a replica
 * wait can tell whether it speaks for the script's writes. `args` are the script's KEYS then ARGV;
 * the first key routes the call. The command is defined on the connection at its first use, and a
 * pipeline has only what is defined when it is made: it is defined first.
 */
export function ledgerScriptOnConnection<Reply>(
  redis: RedisClient & LedgerCommands,
  command: keyof LedgerCommands,
  args: readonly (string | number)[],
): Promise<OnConnection<Reply>> {
  void redis[command];
  return onConnection<Reply>(redis, String(args[0]), (pipeline) => {
    const script = (pipeline as unknown as Partial<Record<string, (...scriptArgs: readonly (string | number)[]) => unknown>>)[command];
    if (script === undefined) throw new Error(`${command} is not defined on the connection's pipelines`);
    script.call(pipeline, ...args);
  });
}
