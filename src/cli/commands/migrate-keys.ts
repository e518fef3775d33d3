import type { Command } from 'commander';

export function register(program: Command): void {
  program
    .command('migrate-keys')
    .description("move the Redis keys of a version before the cluster layout to today's names (stop every worker and serve first)")
    .option('--dry-run', 'say what would move; move nothing', false)
    .option('--json', 'print the summary as JSON', false)
    .action(async (o: { dryRun: boolean; json: boolean }) => {
      const { runMigrateKeys, migrationText } = await import('../run/migrate-keys.js');
      const { openContext } = await import('../../app/app-context.js');
      const context = await openContext([], {}, {}, { keyLayout: false });
      try {
        const summary = await runMigrateKeys(context, { dryRun: o.dryRun });
        console.log(o.json ? JSON.stringify({ dryRun: o.dryRun, ...summary }) : migrationText(summary, o.dryRun));
      } finally {
        await context.close();
      }
    });
}
