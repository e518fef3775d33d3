import { numberScope } from '../key-scope.js';

/*
 * The ledger's key names. Everything of one phone number lives under its scope
 * `<prefix>:{<number>}` (src/redis/key-scope.ts): its campaigns' hashes, rows and backlogs,
 * its duplicate guard, its feed, its in-doubt rows, its opt-outs, its marketing caps, its
 * service windows and its message-ID index. The Lua scripts get that scope as their "prefix"
 * and build the same names (`<scope>:campaign:<id>`, `<scope>:sent:<number>`, …), so every
 * script call stays in the number's cluster slot. Only the indexes below live outside any number's scope.
 */

/** Campaign ID → created-at ms: every campaign, for `campaign list` (a plain key: read on its own). */
export function campaignIndexKey(prefix: string): string {
  return `${prefix}:campaigns`;
}

/** Campaign ID → phone number ID: where a campaign's keys live (written before its keys). */
export function campaignNumbersKey(prefix: string): string {
  return `${prefix}:campaign-numbers`;
}

/** The retention run's lock: held by the one worker purging expired campaigns. */
export function retentionLockKey(prefix: string): string {
  return `${prefix}:retention-lock`;
}

/** Every phone number that has had a campaign (workers serving all numbers discover them here). */
export function phoneNumbersKey(prefix: string): string {
  return `${prefix}:numbers`;
}

/** The duplicate-send guard of a phone number: fingerprint → its claim's campaign, row and time (includes/sent-guard.lua). */
export function sentGuardKeys(prefix: string, phoneNumberId: string): { sent: string } {
  const scope = numberScope(prefix, phoneNumberId);
  return { sent: `${scope}:sent:${phoneNumberId}` };
}

/**
 * The keys of one campaign's ledger: its hash, its rows, its backlog (rows still to be fed a
 * job; the feed script builds this name from the scope too), its lanes, the brake's bits and
 * its history (who created and controlled it: src/redis/history/redis-campaign-history.ts),
 * and its timeline (the counters' changes by time bucket: the scripts build it from the hash's name).
 */
export function campaignLedgerKeys(
  prefix: string,
  phoneNumberId: string,
  campaignId: string,
): { campaign: string; rows: string; pending: string; lanes: string; recent: string; history: string; timeline: string } {
  const campaign = `${numberScope(prefix, phoneNumberId)}:campaign:${campaignId}`;
  return {
    campaign,
    rows: `${campaign}:rows`,
    pending: `${campaign}:pending`,
    lanes: `${campaign}:lanes`,
    recent: `${campaign}:recent`,
    history: `${campaign}:history`,
    timeline: `${campaign}:timeline`,
  };
}

/**
 * The backlog of a send-window lane: `pending:<lane>` (the scripts build it the same way).
 * A campaign without a window keeps its backlog in `pending` itself.
 */
export function laneBacklogKey(pendingKey: string, lane: number): string {
  return `${pendingKey}:${lane}`;
}

/**
 * A phone number's feed: its campaigns that may have rows to feed (→ priority), the jobs fed and not done (→ ms fed),
 * the rows of those jobs that carry several (group ID → rows) and how many rows those hold in all.
 */
export function feedKeys(prefix: string, phoneNumberId: string): { active: string; window: string; groups: string; groupRows: string } {
  const scope = numberScope(prefix, phoneNumberId);
  const feed = `${scope}:feed:${phoneNumberId}`;
  return { active: `${feed}:campaigns`, window: `${feed}:window`, groups: `${feed}:groups`, groupRows: `${feed}:group-rows` };
}

/** A phone number's in-doubt rows (→ confirm deadline) and the latest claim time a status webhook came for. */
export function confirmKeys(prefix: string, phoneNumberId: string): { confirm: string; statusSeen: string; cappedRetry: string } {
  const scope = numberScope(prefix, phoneNumberId);
  return {
    confirm: `${scope}:confirm:${phoneNumberId}`,
    statusSeen: `${scope}:status-seen:${phoneNumberId}`,
    // `--retry-capped-after`: rows Meta failed with 131049, "campaign/row" → when each is sent again (retry-capped.lua).
    cappedRetry: `${scope}:capped-retry:${phoneNumberId}`,
  };
}

/** A phone number's message-ID index: wamid → "campaign/row" (webhooks carry the number, so they find it). */
export function wamidsKey(prefix: string, phoneNumberId: string): string {
  return `${numberScope(prefix, phoneNumberId)}:wamids`;
}

/** A phone number's recipients of the last 24 h for Meta's messaging limit: wa_id → ms last fed (src/redis/lua/feed.lua). */
export function reachKey(prefix: string, phoneNumberId: string): string {
  return `${numberScope(prefix, phoneNumberId)}:reach:${phoneNumberId}`;
}

/**
 * A phone number's feeds whose recipients the portfolio has not counted yet: lease ID → JSON
 * {t: ms fed, s: new to the number, k: reached again} (feed.lua writes it, the feeder drops it after reach-commit.lua).
 */
export function reachPendingKey(prefix: string, phoneNumberId: string): string {
  return `${numberScope(prefix, phoneNumberId)}:reach-pending:${phoneNumberId}`;
}

/** A phone number's copy of its portfolio's opt-outs: phone → source JSON (src/redis/ledger/ledger-optouts.ts). */
export function optOutsKey(prefix: string, phoneNumberId: string): string {
  return `${numberScope(prefix, phoneNumberId)}:optouts:${phoneNumberId}`;
}

/** A copy of opt-outs as apply-optouts.lua changes it: the opt-outs, and per user the time of the newest stop/resume. */
export interface OptOutCopyKeys {
  optouts: string;
  prefs: string;
}

/** A phone number's copy of its portfolio's opt-outs, and the portfolio it copied them from (`optOutsCopiedFrom`). */
export function numberOptOutKeys(prefix: string, phoneNumberId: string): OptOutCopyKeys & { copiedFrom: string } {
  const scope = numberScope(prefix, phoneNumberId);
  return {
    optouts: optOutsKey(prefix, phoneNumberId),
    prefs: `${scope}:optout-prefs:${phoneNumberId}`,
    copiedFrom: `${scope}:optouts-portfolio:${phoneNumberId}`,
  };
}

/**
 * A phone number's copy of its portfolio's marketing caps (131049): phone → ms the wait ends
 * (src/redis/ledger/ledger-marketing-caps.ts; claim.lua reads it, apply-statuses.lua builds the name
 * too), and the portfolio it took the record from (`adoptMarketingCaps`).
 */
export function marketingCapKeys(prefix: string, phoneNumberId: string): { caps: string; copiedFrom: string } {
  const scope = numberScope(prefix, phoneNumberId);
  return { caps: `${scope}:marketing-caps:${phoneNumberId}`, copiedFrom: `${scope}:marketing-caps-portfolio:${phoneNumberId}` };
}

/** Open customer service window of a user with a number: exists (→ closing ms) while open. */
export function serviceWindowKey(prefix: string, phoneNumberId: string, waId: string): string {
  return `${numberScope(prefix, phoneNumberId)}:service-window:${phoneNumberId}:${waId.replace(/^\+/, '')}`;
}
