import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  program
    .command('report')
    .description('write the per-row CSV report of a campaign')
    .argument('<id>', 'campaign ID')
    .option(
      '--out <file>',
      'where to write it (default REPORTS_DIR/<id>.csv; - writes it to stdout); a file is replaced only once the new report is complete',
    )
    .action(async (id: string, o: { out?: string }) => {
      const { runReport } = await import('../run/report.js');
      const outcome = await withContext((context) => runReport(context, id, o.out));
      if (outcome.kind === 'file') console.log(`${outcome.path} (${outcome.lines} rows)`);
      if (outcome.kind === 'stopped') {
        console.error(`Report stopped; ${outcome.path === 'stdout' ? 'stdout has part of it' : `${outcome.path} was left as it was`}`);
        process.exitCode = 130;
      }
    });
}
