// Its own module: what prices recorded rows (`campaign status`) needs it without the markets
// table and the phone-number metadata the estimate of a plan loads.

/** Amounts in the card's currency, kept to a millionth so sums of many small rates do not show binary noise. */
export function roundAmount(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
