import { writeReport, writeReportTo } from '../../campaigns/report/report.js';
import type { AppContext } from '../../app/app-context.js';
import { reportSource } from '../../app/report-source.js';

/** What `campaign report` did: wrote a file, wrote stdout, or was stopped (Ctrl-C; a file there before is kept). */
export type ReportOutcome =
  { kind: 'file'; path: string; lines: number } | { kind: 'stdout'; lines: number } | { kind: 'stopped'; path: string };

/** `--out -`: the report goes to stdout. */
export const STDOUT = '-';

/** `campaign report ID [--out FILE|-]`: the report of reportSource, to a file (replaced once complete) or stdout. */
export async function runReport(context: AppContext, campaignId: string, out: string | undefined): Promise<ReportOutcome> {
  const { ledger } = context;
  const { savedPath, userIds } = await reportSource(context, campaignId);
  const path = out === STDOUT ? 'stdout' : (out ?? savedPath);
  const stop = stopOnSignal();
  try {
    const options = { signal: stop.signal, userIds };
    if (out === STDOUT) return { kind: 'stdout', lines: await writeReportTo(ledger, campaignId, process.stdout, options) };
    return { kind: 'file', path, lines: await writeReport(ledger, campaignId, path, options) };
  } catch (error) {
    if (stop.signal.aborted) return { kind: 'stopped', path };
    throw error;
  } finally {
    stop.release();
  }
}

/** Ctrl-C (or SIGTERM) stops the writing; the temporary file is removed and the old report kept. */
function stopOnSignal(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
