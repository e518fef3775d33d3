import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  const hooks = program
    .command('hooks')
    .description("outbound hooks: your systems' URLs that `serve` POSTs campaign events to, signed and batched (docs/events.md)");
  hooks
    .command('add')
    .description('add a hook and print its secret once')
    .argument('<url>', 'where to POST the events, http(s)')
    .requiredOption('--events <list>', 'comma-separated: row.sent, row.delivered, … campaign.completed, or all, row.*, campaign.*')
    .option('--campaign <id>', "only this campaign's events (default: every campaign's)")
    .option('--name <name>', "the hook's name (letters, digits, _ - .; default: from the URL's host)")
    .option('--json', 'print JSON: {"name","url","events","campaignId","createdAt","secret"}')
    .action(async (url: string, o: { events: string; campaign?: string; name?: string; json?: boolean }) => {
      const { addHook } = await import('../../app/hooks.js');
      const { addedJson, addedText } = await import('../run/hooks.js');
      const added = await withContext((context) => addHook(context, { url, events: [o.events], campaignId: o.campaign, name: o.name }));
      console.log(o.json === true ? addedJson(added) : addedText(added));
    });
  hooks
    .command('list')
    .description('every hook: its URL, events, and what became of its events (queued, delivered, retried, dead, waiting, lag)')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const { listHooks } = await import('../../app/hooks.js');
      const { hooksText } = await import('../run/hooks.js');
      const list = await withContext((context) => listHooks(context));
      console.log(o.json === true ? JSON.stringify(list) : hooksText(list));
    });
  hooks
    .command('remove')
    .description('remove a hook, with its waiting events and dead letters')
    .argument('<name>', "the hook's name (see campaign hooks list)")
    .action(async (name: string) => {
      const { removeHook } = await import('../../app/hooks.js');
      await withContext((context) => removeHook(context, name));
      console.log(`Hook "${name}" is removed, with its waiting events and dead letters.`);
    });
  hooks
    .command('test')
    .description('POST one signed `hook.test` batch to the hook now and say how it answered')
    .argument('<name>', "the hook's name")
    .action(async (name: string) => {
      const { testHook } = await import('../../app/hooks.js');
      const { testedText } = await import('../run/hooks.js');
      const answer = await withContext((context) => testHook(context, name));
      if (!answer.ok) process.exitCode = 1;
      (answer.ok ? console.log : console.error)(testedText(name, answer));
    });
  hooks
    .command('failed')
    .description('the events given up on after HOOK_RETRY_HOURS of failed deliveries (oldest first)')
    .argument('<name>', "the hook's name")
    .option('--limit <n>', 'show at most this many', '100')
    .option('--json', 'print JSON')
    .action(async (name: string, o: { limit: string; json?: boolean }) => {
      const { failedHookEvents } = await import('../../app/hooks.js');
      const { failedText, parseLimit } = await import('../run/hooks.js');
      const limit = parseLimit(o.limit);
      const failed = await withContext((context) => failedHookEvents(context, name, limit));
      console.log(o.json === true ? JSON.stringify(failed) : failedText(name, failed));
    });
  hooks
    .command('redeliver')
    .description("put the hook's dead letters back in its outbox: `serve` delivers them again")
    .argument('<name>', "the hook's name")
    .action(async (name: string) => {
      const { redeliverHook } = await import('../../app/hooks.js');
      const { redelivered } = await withContext((context) => redeliverHook(context, name));
      console.log(
        redelivered === 0
          ? `Hook "${name}" has no dead letters.`
          : `${redelivered} dead letter${redelivered === 1 ? '' : 's'} of hook "${name}" queued again: \`campaign serve\` delivers them.`,
      );
    });
}
