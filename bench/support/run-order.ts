/**
 * The order of a run's sides (`run` counts from 0). A plain rotation varies who runs first, but each
 * side then always follows the same one: a side that leaves the machine or Redis busier (webhooks
 * flowing) weighs on its follower's every run. So each run also walks the sides by another step
 * (one that reaches them all), starting where the walk ends with the side at place `run - 1`: the
 * first side, the last side and each side's predecessor change from run to run.
 */
export function runOrder<Side>(sides: readonly Side[], run: number): Side[] {
  const count = sides.length;
  const steps = stepsThroughAll(count);
  const step = steps[run % steps.length] ?? 1;
  const start = run + step - 1;
  return sides.map((_, k) => sides[(start + k * step) % count] as Side);
}

/** The steps that visit every place of a ring of `count` places: those with no common factor with it. */
function stepsThroughAll(count: number): number[] {
  const steps: number[] = [];
  for (let step = 1; step < count; step++) if (gcd(step, count) === 1) steps.push(step);
  return steps;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
