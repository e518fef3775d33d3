import type { RetryProgress } from '../../campaigns/control/campaign-controls.js';

/** How often long work says how far it got; work shorter than this prints nothing. */
const EVERY_MS = 2000;

type Write = (line: string) => void;
const toStderr: Write = (line) => process.stderr.write(`${line}\n`);
const n = (value: number): string => value.toLocaleString('en-US');
const share = (done: number, total: number): number => (total === 0 ? 100 : Math.min(100, Math.floor((100 * done) / total)));

/**
 * Progress lines on stderr for the commands that walk a whole file or campaign (send,
 * retry): on a million rows they run for tens of seconds, and an
 * operator should see them move, not wonder whether to press Ctrl-C. (Pressing it is safe:
 * each step can be run again, see CampaignControls.)
 */
export function throttled<T>(format: (progress: T) => string, write: Write): (progress: T) => void {
  let last = Date.now();
  return (progress) => {
    const now = Date.now();
    if (now - last < EVERY_MS) return;
    last = now;
    write(format(progress));
  };
}

/** `campaign send` on a large file: rows read so far, against the pre-scan's estimate. */
export function ingestProgressPrinter(estimatedRows: () => number, write: Write = toStderr): (rowsRead: number) => void {
  return throttled((read: number) => {
    const total = Math.max(estimatedRows(), read);
    return `reading the file: ${n(read)} of about ${n(total)} rows (${share(read, total)} %)`;
  }, write);
}

export function retryProgressPrinter(write: Write = toStderr): (progress: RetryProgress) => void {
  return throttled(
    (p) => `choosing rows to retry: ${n(p.scanned)} of ${n(p.total)} looked at (${share(p.scanned, p.total)} %), ${n(p.requeued)} put back`,
    write,
  );
}
