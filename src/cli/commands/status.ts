import type { Command } from 'commander';
import { AppError } from '../../errors/app-error.js';
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
        const outcome = await withContext((context) => watchStatus(context, id, { json: o.json === true, notFound: () => notFound(id) }));
        if (outcome === 'interrupted') process.exitCode = 130;
        return;
      }
      const { statusJson, statusText } = await import('../format.js');
      const { windowStatus } = await import('../../campaigns/report/window-status.js');
      const { costLine, statusCost } = await import('../run/status-cost.js');
      const { loadRateCard } = await import('../../pricing/rate-card.js');
      await withContext(async ({ ledger, config }) => {
        const card = loadRateCard(config.rateCardFile);
        const status = await ledger.status(id);
        if (status === undefined) throw notFound(id);
        const definition = await ledger.getCampaign(id);
        const window = definition?.window;
        const windowed = window === undefined ? undefined : windowStatus(window, await ledger.laneBacklogs(id), Date.now());
        const cost = await statusCost(ledger, card, status);
        if (o.json === true) console.log(JSON.stringify({ ...statusJson(status, windowed, definition), cost }));
        else {
          const sourceCampaign = definition?.sourceCampaign;
          const source = sourceCampaign === undefined ? '' : `\n  retargets rows of campaign ${sourceCampaign}`;
          console.log(`${statusText(status, windowed, definition)}${source}\n${costLine(cost)}`);
        }
      });
    });
}

function notFound(id: string): Error {
  return new AppError('CAMPAIGN_NOT_FOUND', `No campaign ${id} under this QUEUE_PREFIX (see \`campaign list\`)`);
}
