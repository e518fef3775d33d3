import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  program
    .command('status')
    .description('show a campaign state and counts')
    .argument('<id>', 'campaign ID')
    .option('--json', 'print JSON')
    .option(
      '--watch',
      'a live view, read once a second, until the campaign is completed or cancelled: progress bar, rate, ETA, counts ' +
        '(with --json: one JSON object per line, with rate and etaSeconds; Ctrl-C leaves it, exit 130)',
    )
    .action(async (id: string, o: { json?: boolean; watch?: boolean }) => {
      if (o.watch === true) {
        const { watchStatus } = await import('../run/status-watch.js');
        const { campaignNotFound } = await import('../../campaigns/campaign-not-found.js');
        const notFound = () => campaignNotFound(id);
        const outcome = await withContext((context) => watchStatus(context, id, { json: o.json === true, notFound }));
        if (outcome === 'interrupted') process.exitCode = 130;
        return;
      }
      const { statusText } = await import('../format.js');
      const { costLine } = await import('../run/status-cost.js');
      const { readCampaignStatus, statusViewOf } = await import('../../app/campaign-status.js');
      const { printable, printableJson } = await import('../../text/operator-text.js');
      await withContext(async (context) => {
        const read = await readCampaignStatus(context, id, Date.now());
        // Stored texts may hold what a terminal acts on: escaped in JSON (same data), neutralised in text.
        if (o.json === true) console.log(printableJson(JSON.stringify(statusViewOf(read))));
        else {
          const { status, windowed, definition, cost } = read;
          const sourceCampaign = definition?.sourceCampaign;
          const source = sourceCampaign === undefined ? '' : `\n  retargets rows of campaign ${printable(sourceCampaign)}`;
          console.log(`${statusText(status, windowed, definition)}${source}\n${costLine(cost)}`);
        }
      });
    });
}
