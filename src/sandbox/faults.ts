import { z } from 'zod';
import type { GraphErrorSpec } from './graph-error.js';

/**
 * Fault injection: the misbehaviour a real Cloud API shows now and then (5xx answers,
 * answers that never come, slow answers), on demand, so the client's retry and timeout
 * paths can be exercised. Faults are decided after the token check and before validation,
 * so a faulted request is never accepted.
 */
export interface FaultSettings {
  /** Fraction (0..1) answered with a 5xx Graph error; nothing is accepted. */
  errorRate?: number;
  /** Statuses picked from at random for those answers (default [500, 503]). */
  errorStatuses?: number[];
  /** Added before every /messages answer. */
  latencyMs?: number;
  /** Fraction (0..1) held without an answer until the client gives up or the sandbox closes. */
  timeoutRate?: number;
}

export const faultSettingsSchema = z.strictObject({
  errorRate: z.number().min(0).max(1).optional(),
  errorStatuses: z.array(z.number().int().min(500).max(599)).min(1).optional(),
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  timeoutRate: z.number().min(0).max(1).optional(),
});

type ParsedFaultSettings = z.infer<typeof faultSettingsSchema>;

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

export class FaultInjector {
  private settings: ParsedFaultSettings = {};

  constructor(private readonly random: () => number = Math.random) {}

  /** Replaces all settings (an empty object turns every fault off). Throws on bad values. */
  set(settings: FaultSettings | ParsedFaultSettings): void {
    this.settings = faultSettingsSchema.parse(settings);
  }

  get current(): ParsedFaultSettings {
    return this.settings;
  }

  get latencyMs(): number {
    return this.settings.latencyMs ?? 0;
  }

  /**
   * One draw decides both faults, so the rates are exact shares of traffic: with
   * errorRate 0.1 and timeoutRate 0.2, 10 % fail and another 20 % hang. If they add up to
   * more than 1, errors take precedence.
   */
  decide(): FaultDecision {
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
}
