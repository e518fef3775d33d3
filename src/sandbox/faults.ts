import { asyncFailure, type AsyncFailure } from './async-failures.js';
import type { GraphErrorSpec } from './graph-error.js';
import { faultSettingsSchema, type FaultSettings, type ParsedFaultSettings } from './fault-settings.js';
import { THROUGHPUT_ERROR } from './limit-errors.js';
import { isUsNumber } from '../phone/us-numbers.js';
import { RecipientErrors } from './recipient-errors.js';

/**
 * Fault injection: the misbehaviour a real Cloud API shows now and then (5xx answers,
 * answers that never come, slow answers, bursts of throttling, maintenance, one recipient
 * that keeps failing, failures reported only by webhook), on demand, so the client's retry,
 * pause, timeout and webhook paths can be exercised. Request-wide faults are decided after
 * the token check and before validation, so a faulted request is never accepted; forced
 * synchronous per-recipient errors need the validated recipient and are decided after
 * validation, before the limits, so they use no quota; webhook-only failures are decided
 * once a send is accepted.
 */
export { faultSettingsSchema, type FaultSettings } from './fault-settings.js';

export type FaultDecision = { kind: 'none' } | { kind: 'timeout' } | { kind: 'error'; error: GraphErrorSpec };

const NONE: FaultDecision = { kind: 'none' };
const TIMEOUT: FaultDecision = { kind: 'timeout' };
const DEFAULT_STATUSES = [500, 503];

export const MAINTENANCE_ERROR: Readonly<GraphErrorSpec> = Object.freeze({
  code: 131057,
  status: 500,
  details: 'Simulated fault: the business account is in maintenance mode (e.g. a throughput upgrade); try again in about a minute.',
});

/** 503 is Meta's "Server Temporarily Unavailable"; any other 5xx reads as "Something went wrong". */
function errorFor(status: number): GraphErrorSpec {
  return status === 503
    ? { code: 133004, status, details: 'Simulated fault: the server is temporarily unavailable.' }
    : { code: 131000, status, details: 'Simulated fault: something went wrong.' };
}

/** Whether `now` falls in the throttled head of its `everyMs` period (periods start at epoch 0). */
export function inThrottleBurst(bursts: { everyMs: number; forMs: number }, now: number): boolean {
  // The double modulo keeps a clock before the epoch (only ever a test's) in range.
  const phase = ((now % bursts.everyMs) + bursts.everyMs) % bursts.everyMs;
  return phase < bursts.forMs;
}

export class FaultInjector {
  private settings: ParsedFaultSettings = {};
  private readonly recipients = new RecipientErrors();
  private optedOut = new Set<string>();
  private usernameUsers: ReadonlySet<string> = new Set();
  private maintenanceUntil = 0;
  /** Template sends seen, held, and held ones dropped, since the faults were set (the `held` fault's even spread). */
  private pacing = { sends: 0, held: 0, dropped: 0 };

  constructor(private readonly random: () => number = Math.random) {}

  /**
   * Replaces all settings (an empty object turns every fault off; the US marketing pause,
   * Meta's own behaviour, stays on unless set to false) and restarts the
   * per-recipient counters and the maintenance period (which starts at `now`). Throws a
   * ZodError on bad values, changing nothing.
   */
  set(settings: FaultSettings | ParsedFaultSettings, now: number): void {
    const parsed = faultSettingsSchema.parse(settings);
    this.settings = parsed;
    this.recipients.replace(parsed.recipientErrors, parsed.failedStatus);
    this.optedOut = new Set(parsed.optedOut);
    this.usernameUsers = new Set(parsed.usernameUsers);
    this.maintenanceUntil = parsed.maintenance === undefined ? 0 : now + parsed.maintenance.forMs;
    this.pacing = { sends: 0, held: 0, dropped: 0 };
  }

  /**
   * Whether this accepted template send is held for quality assessment (the `held` fault), and
   * then for how long and whether it is dropped (132015) rather than released at the end.
   */
  heldSend(): { forMs: number; dropped: boolean } | undefined {
    const held = this.settings.held;
    if (held === undefined || held.share === 0) return undefined;
    const p = this.pacing;
    p.sends++;
    if (p.held >= Math.floor(p.sends * held.share)) return undefined;
    p.held++;
    const dropped = p.dropped < Math.floor(p.held * (held.dropShare ?? 0));
    if (dropped) p.dropped++;
    return { forMs: held.releaseAfterMs ?? 1000, dropped };
  }

  /** The settings as last set (recipient counters as given, not as used up). */
  get current(): ParsedFaultSettings {
    return this.settings;
  }

  get latencyMs(): number {
    return this.settings.latencyMs ?? 0;
  }

  /**
   * The request-wide fault for a request arriving at `now`. A throttle burst wins over the
   * random faults: while Meta is throttling a number it answers 130429 and nothing else.
   * Otherwise one draw decides both random faults, so the rates are exact shares of
   * traffic: with errorRate 0.1 and timeoutRate 0.2, 10 % fail and another 20 % hang. If
   * they add up to more than 1, errors take precedence.
   */
  decide(now: number, phoneNumberId: string): FaultDecision {
    if (now < this.maintenanceUntil) {
      const only = this.settings.maintenance?.phoneNumberId;
      if (only === undefined || only === phoneNumberId) return { kind: 'error', error: { ...MAINTENANCE_ERROR } };
    }
    const bursts = this.settings.throttleBursts;
    if (bursts !== undefined && inThrottleBurst(bursts, now)) return { kind: 'error', error: { ...THROUGHPUT_ERROR } };
    const errorRate = this.settings.errorRate ?? 0;
    const timeoutRate = this.settings.timeoutRate ?? 0;
    if (errorRate === 0 && timeoutRate === 0) return NONE;
    const draw = this.random();
    if (draw < errorRate) {
      const statuses = this.settings.errorStatuses ?? DEFAULT_STATUSES;
      const status = statuses[Math.floor(this.random() * statuses.length)] ?? 500;
      return { kind: 'error', error: errorFor(status) };
    }
    return draw < errorRate + timeoutRate ? TIMEOUT : NONE;
  }

  /** Whether this user has a username: their messages and preferences carry their user ID only (usernameUsers). */
  isUsernameUser(waId: string): boolean {
    return this.usernameUsers.has(waId);
  }

  /**
   * A user stopped (true) or resumed (false) marketing messages (`POST /_sandbox/user-preferences`):
   * from now on a MARKETING template to them fails 131050, as with `optedOut`, or reaches them again.
   * Setting the faults again starts over from their `optedOut`.
   */
  setMarketingStopped(waId: string, stopped: boolean): void {
    if (stopped) this.optedOut.add(waId);
    else this.optedOut.delete(waId);
  }

  /** The Marketing Messages API's answer for this number (the marketingMessagesRefusal fault), if it refuses it. */
  marketingMessagesRefusal(phoneNumberId: string): number | undefined {
    const refusal = this.settings.marketingMessagesRefusal;
    if (refusal === undefined) return undefined;
    return refusal.phoneNumberId === undefined || refusal.phoneNumberId === phoneNumberId ? refusal.code : undefined;
  }

  /**
   * The forced synchronous error for this validated recipient, using one of its `times`;
   * undefined when none is left or its code is one Meta reports by webhook.
   */
  recipientError(waId: string): GraphErrorSpec | undefined {
    return this.recipients.takeSync(waId);
  }

  /** A forced failure by webhook for this accepted send (recipientErrors, failedStatus), using one of its `times`. */
  forcedFailure(waId: string): AsyncFailure | undefined {
    return this.recipients.takeAsync(waId);
  }

  /**
   * Whether this accepted send is to be reported failed by webhook for a reason other than a
   * forced one: the recipient opted out of marketing, or is a US number while Meta's pause of
   * US marketing holds (MARKETING templates only), else the failureShare draw. The draw is
   * taken only when a failureShare is set, so the random sequence of the other faults does
   * not shift when it is not.
   */
  laterFailure(waId: string, category: string | undefined): AsyncFailure | undefined {
    if (category === 'MARKETING' && this.optedOut.has(waId)) return asyncFailure(131050, 'optedOut');
    if (category === 'MARKETING' && this.settings.usMarketingPaused !== false && isUsNumber(`+${waId}`)) {
      return asyncFailure(131049, 'usMarketingPaused');
    }
    const share = this.settings.failureShare;
    if (share === undefined || share.rate === 0 || this.random() >= share.rate) return undefined;
    const code = share.codes[Math.floor(this.random() * share.codes.length)] ?? share.codes[0] ?? 131026;
    return asyncFailure(code, 'failureShare');
  }
}
