import type { Command } from 'commander';
import type { CampaignFlags } from '../../campaigns/spec/campaign-flags.js';
import { CAMPAIGN_FLAG_HELP, type FlagHelp } from '../../campaigns/spec/campaign-flag-help.js';
import { declareFlag } from '../campaign-flag-options.js';
import type { SendCommandOptions } from '../run/send.js';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  const send = program
    .command('send')
    .description('check a CSV against an approved template (or fill a --text), then queue one job per valid row')
    .argument('[file]', 'CSV file with a header row (or --audience NAME)');
  for (const [field, help] of Object.entries(CAMPAIGN_FLAG_HELP) as [keyof CampaignFlags, FlagHelp][]) {
    declareFlag(send, field, help);
    // The command line's own flag (a file on this machine, not a field of the campaign): --help lists it here.
    if (field === 'defaultTimezone')
      send.option('--templates <file>', 'approved templates from this Meta list JSON instead of the registry source');
  }
  send.option('--json', 'print a JSON summary').action(sendCampaign);
}

/** `campaign send FILE`: checks and queues the file, prints the plan; an interrupted read exits 130. */
async function sendCampaign(given: string | undefined, o: SendCommandOptions): Promise<void> {
  // A usage error, before Redis is asked anything: the file, or the audience that takes its place.
  if (given === undefined && o.audience === undefined) {
    const { ArgumentError } = await import('../usage-errors.js');
    throw new ArgumentError("missing required argument 'file' (or --audience NAME)", 'see campaign send --help');
  }
  const { campaignFlagsOf, runSend } = await import('../run/send.js');
  const { summaryText } = await import('../format.js');
  const { summaryJson } = await import('../../app/views/send-summary-view.js');
  const { displayZoneOf } = await import('../../campaigns/spec/display-zone.js');
  const { ingestInterruptedError, ingestNotices, stopOnSignals } = await import('../run/send-notices.js');
  // Checked before anything is created; the plan shows its times where the operator reads them.
  const { CLI_FIELD_NAMES } = await import('../../campaigns/spec/field-names.js');
  const zone = displayZoneOf(
    { displayTimezone: o.displayTimezone, typed: [o.at, o.expiresAt, o.startDeadline] },
    CLI_FIELD_NAMES.displayTimezone,
  );
  const flags = campaignFlagsOf(o);
  // What the notices call the recipients: the file, or the audience (its segment is written to a file of its own).
  const file = given ?? `audience ${o.audience ?? '?'}${o.where === undefined ? '' : ` (where ${o.where})`}`;
  const stop = stopOnSignals();
  const notices = ingestNotices(file, process.argv.slice(2));
  const result = await withContext(async (context) => {
    const sent = await runSend(context, {
      ...flags,
      file: given,
      templatesFile: o.templates,
      signal: stop.signal,
      onStart: notices.onStart,
      onProgress: notices.onProgress,
    }).finally(() => stop.release());
    // The plan's start is now for a campaign that starts at once (a continued one: the start it was created with).
    const startsNow = sent.estimate.startsAt <= Date.now();
    // The plan's pace is the number's own rate (SEND_RATES), as its workers send.
    console.log(o.json === true ? JSON.stringify(summaryJson(sent, sent.sendRate)) : summaryText(sent, sent.sendRate, { zone, startsNow }));
    if (o.testTo !== undefined && sent.queued > 0) {
      const { watchTestSend } = await import('../run/test-send-watch.js');
      console.error(`Test send ${sent.id}: the messages' IDs and statuses as they come (Ctrl-C stops watching; they still go)`);
      await watchTestSend(context, sent.id, (line) => console.error(line));
    }
    return sent;
  });
  const stoppedAt = result.interruptedAtRow;
  if (stoppedAt !== undefined) {
    console.error(
      result.dryRun
        ? `campaign: INGEST_INTERRUPTED: dry run stopped at row ${stoppedAt}; nothing was created`
        : `campaign: INGEST_INTERRUPTED: ${ingestInterruptedError(result.id, stoppedAt, file, process.argv.slice(2))}`,
    );
    process.exitCode = 130;
  }
}
