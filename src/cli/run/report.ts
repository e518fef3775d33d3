import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { reportFileName } from '../../campaigns/campaign-name.js';
import { writeReport, writeReportTo } from '../../campaigns/report/report.js';
import { AppError } from '../../errors/app-error.js';
import type { AppContext } from '../../app/app-context.js';
import { reportUserIds } from '../../redis/redis-user-links.js';

/** What `campaign report` did: wrote a file, wrote stdout, or was stopped (Ctrl-C; a file there before is kept). */
export type ReportOutcome =
  { kind: 'file'; path: string; lines: number } | { kind: 'stdout'; lines: number } | { kind: 'stopped'; path: string };

/** `--out -`: the report goes to stdout. */
export const STDOUT = '-';

/**
 * `campaign report ID [--out FILE|-]`. A purged campaign has no rows left, so its report now
 * would be empty: refused (CAMPAIGN_PURGED), and the report saved before the purge is named
 * and left as it is.
 */
export async function runReport(context: AppContext, campaignId: string, out: string | undefined): Promise<ReportOutcome> {
  const { ledger, config } = context;
  const status = await ledger.status(campaignId);
  if (status === undefined)
    throw new AppError('CAMPAIGN_NOT_FOUND', `No campaign ${campaignId} under this QUEUE_PREFIX (see \`campaign list\`)`);
  const definition = await ledger.getCampaign(campaignId);
  const savedPath = join(config.reportsDir, reportFileName(campaignId, definition?.name));
  if (status.purgedAt !== undefined) throw purged(campaignId, status.purgedAt, savedPath, await isFile(savedPath));
  const path = out === STDOUT ? 'stdout' : (out ?? savedPath);
  const number = definition?.phoneNumberId ?? '';
  const userIds = reportUserIds(context.redis, config.queuePrefix, config.portfolios, number);
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

function purged(campaignId: string, purgedAt: number, savedPath: string, saved: boolean): AppError {
  const head =
    `Campaign ${campaignId} was purged at ${new Date(purgedAt).toISOString()}: its rows are ` +
    `gone, so a report now would be empty and none is written.`;
  const tail = saved
    ? ` Its report saved before the purge is ${savedPath} (left as it was).`
    : ` No report of it was saved at ${savedPath}; \`campaign status ${campaignId}\` still shows its counts.`;
  return new AppError('CAMPAIGN_PURGED', head + tail);
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() === true;
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
