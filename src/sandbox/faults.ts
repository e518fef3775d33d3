import type { GraphErrorSpec } from './graph-error.js';
import { faultSettingsSchema, type FaultSettings, type ParsedFaultSettings } from './fault-settings.js';
import { THROUGHPUT_ERROR } from './limit-errors.js';
import { RecipientErrors } from './recipient-errors.js';

/**
 * Fault injection: the misbehaviour a real Cloud API shows now and then (5xx answers,
 * answers that never come, slow answers, bursts of throttling, one recipient that keeps
 * failing), on demand, so the client's retry, pause and timeout paths can be exercised.
 * Request-wide faults are decided after the token check and before validation, so a faulted
 * request is never accepted; per-recipient errors need the validated recipient and are
 * decided after validation, before the limits, so they use no quota.
 */
export { faultSettingsSchema, type FaultSettings } from './fault-settings.js';

export type FaultDecision = { kind: 'none' } | { kind: 'timeout' } | { kind: 'error'; error: GraphErrorSpec };

const NONE: FaultDecision = { kind: 'none' };
const TIMEOUT: FaultDecision = { kind: 'timeout' };
const DEFAULT_STATUSES = [500, 503];

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

  constructor(private readonly random: () => number = Math.random) {}

  /**
   * Replaces all settings (an empty object turns every fault off) and restarts the
   * per-recipient counters. Throws a ZodError on bad values, changing nothing.
   */
  set(settings: FaultSettings | ParsedFaultSettings): void {
    const parsed = faultSettingsSchema.parse(settings);
    this.settings = parsed;
    this.recipients.replace(parsed.recipientErrors);
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
  decide(now: number): FaultDecision {
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

  /** The forced error for this validated recipient, using one of its `times`; undefined when none is left. */
  recipientError(waId: string): GraphErrorSpec | undefined {
    return this.recipients.take(waId);
  }
}
