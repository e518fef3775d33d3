import { Queue } from 'bullmq';
import { AppError } from '../../errors/app-error.js';
import { migrateKeyLayout, oldLayoutQueues, type MigrationSummary } from '../../redis/key-migration.js';
import type { AppContext } from '../../app/app-context.js';

/**
 * `campaign migrate-keys [--dry-run]`: the key layout of versions before the cluster one moved
 * to today's (src/redis/key-migration.ts). Refused while a worker still serves an old queue:
 * it would keep writing the old names.
 */
export async function runMigrateKeys(context: AppContext, options: { dryRun: boolean }): Promise<MigrationSummary> {
  const { redis, config } = context;
  for (const { number, name, prefix } of await oldLayoutQueues(redis, config.queuePrefix)) {
    const queue = new Queue(name, { connection: redis, prefix });
    queue.on('error', () => undefined);
    try {
      const workers = await queue.getWorkersCount();
      if (workers > 0) {
        throw new AppError(
          'CAMPAIGN_STATE_CONFLICT',
          `${workers} worker(s) of an earlier version still serve number ${number} (its send queue of the earlier ` +
            `layout). Stop every \`campaign worker\` and \`campaign serve\`, then run migrate-keys again.`,
        );
      }
    } finally {
      await queue.close();
    }
  }
  return migrateKeyLayout(redis, config.queuePrefix, options);
}

export function migrationText(summary: MigrationSummary, dryRun: boolean): string {
  const verb = dryRun ? 'would move' : 'moved';
  const lines = [
    `${verb} ${summary.moved} keys to the cluster layout (each number's keys in one cluster slot); ${summary.wamids} message-ID ` +
      `index entries ${dryRun ? 'would go' : 'went'} to their number's index; ${summary.campaigns} campaigns indexed by number`,
  ];
  if (summary.dropped > 0)
    lines.push(`  ${summary.dropped} pacer keys ${dryRun ? 'would be' : 'were'} dropped (they only live a few seconds)`);
  if (summary.orphanWamids > 0)
    lines.push(`  ${summary.orphanWamids} message-ID entries of campaigns no longer in the ledger ${dryRun ? 'would be' : 'were'} dropped`);
  if (summary.conflicts.length > 0)
    lines.push(
      `  ${summary.conflicts.length} keys left as they are: their new name is taken ` +
        `(${summary.conflicts.slice(0, 5).join(', ')}${summary.conflicts.length > 5 ? ', …' : ''})`,
    );
  if (summary.unknown.length > 0)
    lines.push(
      `  ${summary.unknown.length} keys this version does not know, left as they are ` +
        `(${summary.unknown.slice(0, 5).join(', ')}${summary.unknown.length > 5 ? ', …' : ''})`,
    );
  if (!dryRun && summary.moved + summary.wamids + summary.campaigns === 0)
    lines.push('  nothing left to move: the keys are in the cluster layout');
  return lines.join('\n');
}
