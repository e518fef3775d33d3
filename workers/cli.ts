import { join } from 'node:path';
import { Command, Option } from 'commander';
import type { RequiredSetting } from '../src/config/config.js';
import { isAppError } from '../src/errors/app-error.js';
import type { AppContext } from './app-context.js';

// Each command loads its own code when it runs: `send` does not pay for fastify and the
// sandbox, which is start-up time and memory on every invocation.

const program = new Command('campaign')
  .description('Send WhatsApp template campaigns from CSV files through the Cloud API.')
  .showHelpAfterError();

/** Runs a command with a context, and always closes it. */
async function withContext<T>(fn: (context: AppContext) => Promise<T>, required: readonly RequiredSetting[] = []): Promise<T> {
  const { openContext } = await import('./app-context.js');
  const context = await openContext(required);
  try {
    return await fn(context);
  } finally {
    await context.close();
  }
}

const list = (value: string) => value.split(',').map((s) => s.trim()).filter((s) => s !== '');

program
  .command('send')
  .description('read a CSV into a new campaign and queue one job per valid row')
  .argument('<file>', 'CSV file with a header row')
  .requiredOption('--template <name>', 'approved template name')
  .requiredOption('--language <code>', 'template language code, e.g. en_US')
  .requiredOption('--params <columns>', 'columns for {{1}}..{{n}}, in order, comma-separated', list)
  .option('--phone-column <column>', 'column holding the recipient number', 'phone')
  .option('--header-image-column <column>', 'column holding the https link of an image header')
  .option('--phone-number-id <id>', 'send from this phone-number ID (default WHATSAPP_PHONE_NUMBER_ID)')
  .option('--campaign <id>', 'add to this campaign ID (sending the same file again never duplicates a job)')
  .option('--templates <file>', 'approved templates (Meta list JSON) to check the mapping against')
  .option('--delimiter <char>', 'field delimiter (default ,)')
  .option('--json', 'print a JSON summary')
  .action(async (file: string, o: Record<string, string | string[] | boolean | undefined>) => {
    const { runSend } = await import('./send-command.js');
    const { summaryJson, summaryText } = await import('../src/cli/format.js');
    const summary = await withContext((context) =>
      runSend(context, {
        file,
        template: o.template as string,
        language: o.language as string,
        params: o.params as string[],
        phoneColumn: o.phoneColumn as string,
        headerImageColumn: o.headerImageColumn as string | undefined,
        phoneNumberId: o.phoneNumberId as string | undefined,
        campaignId: o.campaign as string | undefined,
        templatesFile: o.templates as string | undefined,
        delimiter: o.delimiter as string | undefined,
      }),
    );
    console.log(o.json === true ? JSON.stringify(summaryJson(summary)) : summaryText(summary));
  });

program
  .command('worker')
  .description('run the rate-limited send worker until SIGTERM')
  .option('--phone-number-id <id>', 'serve this phone-number ID (default WHATSAPP_PHONE_NUMBER_ID)')
  .action(async (o: { phoneNumberId?: string }) => {
    const required: RequiredSetting[] = ['WHATSAPP_ACCESS_TOKEN'];
    if (o.phoneNumberId === undefined) required.push('WHATSAPP_PHONE_NUMBER_ID');
    const { runWorkerUntilSignal } = await import('./worker-command.js');
    await withContext((context) => runWorkerUntilSignal(context, { phoneNumberId: o.phoneNumberId }), required);
  });

program
  .command('status')
  .description('show a campaign state and counts')
  .argument('<id>', 'campaign ID')
  .option('--json', 'print JSON')
  .action(async (id: string, o: { json?: boolean }) => {
    const { statusJson, statusText } = await import('../src/cli/format.js');
    await withContext(async ({ ledger }) => {
      const status = await ledger.status(id);
      if (status === undefined) throw notFound(id);
      console.log(o.json === true ? JSON.stringify(statusJson(status)) : statusText(status));
    });
  });

program
  .command('report')
  .description('write the per-row CSV report of a campaign')
  .argument('<id>', 'campaign ID')
  .option('--out <file>', 'where to write it (default REPORTS_DIR/<id>.csv)')
  .action(async (id: string, o: { out?: string }) => {
    const { writeReport } = await import('../src/campaigns/report.js');
    await withContext(async ({ ledger, config }) => {
      if ((await ledger.status(id)) === undefined) throw notFound(id);
      const path = o.out ?? join(config.reportsDir, `${id}.csv`);
      const lines = await writeReport(ledger, id, path);
      console.log(`${path} (${lines} rows)`);
    });
  });

program
  .command('list')
  .description('list campaigns with their state and counts')
  .option('--json', 'print JSON')
  .action(async (o: { json?: boolean }) => {
    const { statusJson, statusText } = await import('../src/cli/format.js');
    await withContext(async ({ ledger }) => {
      for (const id of await ledger.listCampaigns()) {
        const status = await ledger.status(id);
        if (status !== undefined) console.log(o.json === true ? JSON.stringify(statusJson(status)) : statusText(status));
      }
    });
  });

program
  .command('sandbox')
  .description('run the local Cloud API sandbox')
  .option('--port <n>', 'port to listen on (0 = any free port)', '8089')
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option('--templates <file>', 'approved templates (Meta list JSON)', 'samples/templates.json')
  .addOption(new Option('--mps <n>', 'messages per second per phone number before 130429 (0 = unlimited)').default('80'))
  .action(async (o: { port: string; host: string; templates: string; mps: string }) => {
    const { runSandboxUntilSignal } = await import('./sandbox-command.js');
    await runSandboxUntilSignal({ port: Number(o.port), host: o.host, templatesFile: o.templates, messagesPerSecond: Number(o.mps) });
  });

program
  .command('demo')
  .description('send the sample campaign through an in-process sandbox and worker')
  .action(async () => {
    const { runDemo } = await import('./demo-command.js');
    await runDemo();
  });

function notFound(id: string): Error {
  return Object.assign(new Error(`No campaign ${id} under this QUEUE_PREFIX (see \`campaign list\`)`), { code: 'CAMPAIGN_NOT_FOUND' });
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Expected failures print one clear message; anything else is a bug and keeps its stack.
  if (isAppError(error) || (error as { code?: string }).code === 'CAMPAIGN_NOT_FOUND') {
    console.error(`campaign: ${(error as Error).message}`);
  } else {
    console.error(error);
  }
  process.exitCode = 1;
}
