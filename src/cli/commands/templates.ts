import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  const templatesCommand = program
    .command('templates')
    .description('approved message templates: fetch them into the Redis cache, list them');

  templatesCommand
    .command('sync')
    .description('fetch every template now (Cloud API, or TEMPLATES_FILE / --templates) and cache it in Redis')
    .option('--templates <file>', 'read this Meta list JSON instead of the Cloud API')
    .action(async (o: { templates?: string }) => {
      const { runTemplatesSync } = await import('../run/templates.js');
      console.log(await withContext((context) => runTemplatesSync(context, { file: o.templates })));
    });

  templatesCommand
    .command('list')
    .description('list approved templates and the variables each needs (cached, refreshed after TEMPLATES_REFRESH_SECONDS)')
    .option('--templates <file>', 'read this Meta list JSON instead of the Cloud API')
    .option('--all', 'show every status, not only APPROVED')
    .option('--json', 'print JSON')
    .action(async (o: { templates?: string; all?: boolean; json?: boolean }) => {
      const { runTemplatesList } = await import('../run/templates.js');
      console.log(await withContext((context) => runTemplatesList(context, { file: o.templates, all: o.all, json: o.json })));
    });
}
