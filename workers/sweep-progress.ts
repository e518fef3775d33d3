import type { SweepProgress } from '../src/campaigns/campaign-controls.js';

/** How often a long sweep says how far it got; a sweep shorter than this prints nothing. */
const EVERY_MS = 2000;

/**
 * A progress line on stderr for the queue sweep of `pause` and `cancel`: on a queue of a
 * million jobs it runs for seconds, and an operator should see it move, not wonder whether
 * to press Ctrl-C. (Pressing it is safe: what was swept is set aside, the rest is parked by
 * the workers as they reach it.)
 */
export function sweepProgressPrinter(write: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): (progress: SweepProgress) => void {
  let last = Date.now();
  return (progress) => {
    const now = Date.now();
    if (now - last < EVERY_MS) return;
    last = now;
    const share = progress.total === 0 ? 100 : Math.min(100, Math.floor((100 * progress.scanned) / progress.total));
    write(
      `sweeping the queue: ${progress.scanned.toLocaleString('en-US')} of ${progress.total.toLocaleString('en-US')} entries looked at (${share} %), ` +
        `${progress.setAside.toLocaleString('en-US')} set aside, ${progress.removed.toLocaleString('en-US')} removed`,
    );
  };
}
