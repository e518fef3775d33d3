import { figure, type Figure } from './figures.js';

/** A run of the scale or top-tier section, as far as the wire goes: each number's busiest second there. */
interface WireRun {
  /** Per number: the most message POSTs that reached the receiver's port in any sliding second (NaN: not captured). */
  perNumberWireBusiest: number[];
  /** Why the wire was not captured, when it was not. */
  wireUnavailable?: string;
}

/**
 * The busiest second of message POSTs at the receiver's port (tcpdump), beside the judged one the
 * sandbox stamped: where the wire held the rate and the sandbox did not, the receiver stalled.
 */
export function wireBusiestFigure(name: string, ours: readonly WireRun[], base: readonly WireRun[], baselineLabel: string): Figure {
  return figure({
    label: `${name}, on the wire`,
    unit: 'msgs',
    ours: ours.flatMap((r) => r.perNumberWireBusiest),
    baseline: base.flatMap((r) => r.perNumberWireBusiest),
    baselineLabel,
    judgedOn: 'worst run',
    target: `informational: the requests at the receiver's port (tcpdump)`,
    check: () => [],
    informational: true,
  });
}

/** Why the wire was not captured (once, when it was not), for the section's notes. */
export function wireNotes(measured: readonly WireRun[]): string[] {
  const why = measured.find((r) => r.wireUnavailable !== undefined)?.wireUnavailable;
  return why === undefined ? [] : [`busiest second on the wire: n/a, ${why}`];
}
