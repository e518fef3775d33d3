import { portfolioLimitKeys } from '../pacer/portfolio-limit-keys.js';
import {
  campaignLedgerKeys,
  confirmKeys,
  feedKeys,
  marketingCapKeys,
  optOutsKey,
  reachKey,
  reachPendingKey,
  sentGuardKeys,
  wamidsKey,
  type OptOutCopyKeys,
} from './ledger-keys.js';

/*
 * The KEYS of the ledger's scripts, each list in its script's header order, built by one
 * function per key set: a call spreads the list into its command and never writes it out.
 * The labels are the headers' names; test/unit/ledger-wiring.test.ts checks each list against
 * the keys its header documents. A script with one key takes that key from ledger-keys.ts.
 */

/** A campaign and its brake's bit ring: resume.lua, lift-ingest-pause.lua, template-status.lua. */
export function brakeKeys(prefix: string, phoneNumberId: string, campaignId: string): [campaign: string, recent: string] {
  const { campaign, recent } = campaignLedgerKeys(prefix, phoneNumberId, campaignId);
  return [campaign, recent];
}

/**
 * record-ingested.lua: the campaign, its rows, the number's duplicate guard, the backlog, the number's feed and the call's
 * mark (`token`: the call's own).
 */
export function recordIngestedKeys(
  prefix: string,
  phoneNumberId: string,
  campaignId: string,
  token: string,
): [campaign: string, rows: string, sent: string, pending: string, active: string, mark: string] {
  const { campaign, rows, pending } = campaignLedgerKeys(prefix, phoneNumberId, campaignId);
  const { sent } = sentGuardKeys(prefix, phoneNumberId);
  return [campaign, rows, sent, pending, feedKeys(prefix, phoneNumberId).active, `${campaign}:chunk:${token}`];
}

/** prior-sends.lua: the campaign (absent for a new one) and the number's duplicate guard. */
export function priorSendsKeys(prefix: string, phoneNumberId: string, campaignId: string): [campaign: string, sent: string] {
  return [campaignLedgerKeys(prefix, phoneNumberId, campaignId).campaign, sentGuardKeys(prefix, phoneNumberId).sent];
}

/** The keys a row's send moves through: halt.lua's KEYS, and the first seven of claim.lua's. */
export type RowSendKeys = [campaign: string, rows: string, sent: string, window: string, active: string, pending: string];

/** halt.lua: the campaign, its rows and backlog, the number's duplicate guard and feed window. */
export function rowSendKeys(prefix: string, phoneNumberId: string, campaignId: string): RowSendKeys {
  const { campaign, rows, pending } = campaignLedgerKeys(prefix, phoneNumberId, campaignId);
  const { sent } = sentGuardKeys(prefix, phoneNumberId);
  const { window, active } = feedKeys(prefix, phoneNumberId);
  return [campaign, rows, sent, window, active, pending];
}

/** claim.lua: a row's send keys, then the number's copies of its portfolio's opt-outs and marketing caps. */
export function claimKeys(prefix: string, phoneNumberId: string, campaignId: string): [...RowSendKeys, optouts: string, caps: string] {
  return [
    ...rowSendKeys(prefix, phoneNumberId, campaignId),
    optOutsKey(prefix, phoneNumberId),
    marketingCapKeys(prefix, phoneNumberId).caps,
  ];
}

/** settle.lua: the campaign, its rows, the message-ID index, the brake, the guard, the feed window and the in-doubt rows. */
export function settleKeys(
  prefix: string,
  phoneNumberId: string,
  campaignId: string,
): [campaign: string, rows: string, wamids: string, recent: string, sent: string, window: string, confirm: string, capped: string] {
  const { campaign, rows, recent } = campaignLedgerKeys(prefix, phoneNumberId, campaignId);
  const { sent } = sentGuardKeys(prefix, phoneNumberId);
  const { window } = feedKeys(prefix, phoneNumberId);
  const { confirm, cappedRetry } = confirmKeys(prefix, phoneNumberId);
  return [campaign, rows, wamidsKey(prefix, phoneNumberId), recent, sent, window, confirm, cappedRetry];
}

/** retry-capped.lua: the number's rows due to be sent again after a 131049, its feed and its copy of the opt-outs. */
export function retryCappedKeys(prefix: string, phoneNumberId: string): [capped: string, active: string, optouts: string] {
  return [confirmKeys(prefix, phoneNumberId).cappedRetry, feedKeys(prefix, phoneNumberId).active, optOutsKey(prefix, phoneNumberId)];
}

/** cancel.lua: the campaign, its backlog and the number's feed. */
export function cancelKeys(prefix: string, phoneNumberId: string, campaignId: string): [campaign: string, pending: string, active: string] {
  const { campaign, pending } = campaignLedgerKeys(prefix, phoneNumberId, campaignId);
  return [campaign, pending, feedKeys(prefix, phoneNumberId).active];
}

/** mark-for-retry.lua: the campaign, its rows and backlog, the number's feed and its copy of the opt-outs. */
export function markForRetryKeys(
  prefix: string,
  phoneNumberId: string,
  campaignId: string,
): [campaign: string, rows: string, pending: string, active: string, optouts: string] {
  const { campaign, rows, pending } = campaignLedgerKeys(prefix, phoneNumberId, campaignId);
  return [campaign, rows, pending, feedKeys(prefix, phoneNumberId).active, optOutsKey(prefix, phoneNumberId)];
}

/** record-marketing-cap.lua: the campaign and the number's copy of its portfolio's marketing caps. */
export function recordMarketingCapKeys(prefix: string, phoneNumberId: string, campaignId: string): [campaign: string, caps: string] {
  return [campaignLedgerKeys(prefix, phoneNumberId, campaignId).campaign, marketingCapKeys(prefix, phoneNumberId).caps];
}

/** confirm-in-doubt.lua: the number's in-doubt rows and status evidence, its feed and its duplicate guard. */
export function confirmInDoubtKeys(prefix: string, phoneNumberId: string): [confirm: string, seen: string, active: string, sent: string] {
  const { confirm, statusSeen } = confirmKeys(prefix, phoneNumberId);
  const { sent } = sentGuardKeys(prefix, phoneNumberId);
  return [confirm, statusSeen, feedKeys(prefix, phoneNumberId).active, sent];
}

/** feed.lua: the number's feed (its campaigns, its window), its reach and its feeds the portfolio has not counted yet. */
export function feedScriptKeys(
  prefix: string,
  phoneNumberId: string,
): [active: string, window: string, reach: string, pending: string, groups: string, groupRows: string] {
  const { active, window, groups, groupRows } = feedKeys(prefix, phoneNumberId);
  return [active, window, reachKey(prefix, phoneNumberId), reachPendingKey(prefix, phoneNumberId), groups, groupRows];
}

/** group-done.lua: the number's feed window, its groups and their row count. */
export function groupDoneKeys(prefix: string, phoneNumberId: string): [window: string, groups: string, groupRows: string] {
  const { window, groups, groupRows } = feedKeys(prefix, phoneNumberId);
  return [window, groups, groupRows];
}

/** reach-commit.lua: the portfolio's reach and its leases. */
export function reachCommitKeys(prefix: string, portfolio: string): [reach: string, leases: string, expiry: string] {
  const { reach, leases, leaseExpiry } = portfolioLimitKeys(prefix, portfolio);
  return [reach, leases, leaseExpiry];
}

/** reach-reserve.lua: the portfolio's reach, its leases and its stored messaging limit. */
export function reachReserveKeys(prefix: string, portfolio: string): [reach: string, leases: string, expiry: string, limit: string] {
  return [...reachCommitKeys(prefix, portfolio), portfolioLimitKeys(prefix, portfolio).limit];
}

/** apply-optouts.lua: one copy of a portfolio's opt-outs (the portfolio's record or a number's copy). */
export function optOutCopyKeys(copy: OptOutCopyKeys): [optouts: string, prefs: string] {
  return [copy.optouts, copy.prefs];
}
