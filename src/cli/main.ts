import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ArgumentError, exitCodeOf, isHelpShown, oneLineUsageErrors } from './usage-errors.js';
import type { RequiredSetting } from '../config/config.js';
import { AppError, isAppError } from '../errors/app-error.js';
import { packageRoot } from '../files/package-root.js';
import type { AppContext } from '../app/app-context.js';
import { followNpxParent } from './npx-parent.js';

// Each command loads its own code when it runs: `send` does not pay for fastify and the
// sandbox, which is start-up time and memory on every invocation.

const program = new Command('campaign')
  .description('Send WhatsApp template campaigns from CSV files through the Cloud API.')
  .version(packageVersion(), '-V, --version', 'print the version');

/** Runs a command with a context, and always closes it. */
async function withContext<T>(fn: (context: AppContext) => Promise<T>, required: readonly RequiredSetting[] = []): Promise<T> {
  const { openContext } = await import('../app/app-context.js');
  const context = await openContext(required);
  try {
    return await fn(context);
  } finally {
    await context.close();
  }
}

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

const collectParam = (value: string, previous: Record<string, string>): Record<string, string> => {
  const match = /^([A-Za-z0-9_]+)=(.+)$/.exec(value);
  if (match === null) throw new InvalidArgumentError('write it as --param name=column, e.g. --param first_name=Name');
  return { ...previous, [match[1] ?? '']: match[2] ?? '' };
};

program
  .command('send')
  .description('check a CSV against an approved template (or fill a --text), then queue one job per valid row')
  .argument('<file>', 'CSV file with a header row')
  .option('--template <name>', 'approved template name (with --language; or use --text)')
  .option('--language <code>', 'template language code, e.g. en_US')
  .option(
    '--text <body>',
    'send this free-form text instead of a template; {{column}} is filled from that CSV column. Only recipients who wrote to the number in the last 24 hours get it (others: WINDOW_CLOSED); at most 4,096 characters',
  )
  .option('--preview-url', 'with --text: show a preview of the first http(s) link in the text')
  .option('--params <columns>', 'positional templates: columns for {{1}}..{{n}}, in order, comma-separated', list)
  .option(
    '--param <name=column>',
    'fill variable <name> from <column> (repeatable); named templates match same-named columns by default',
    collectParam,
    {},
  )
  .option('--phone-column <column>', 'column holding the recipient number', 'phone')
  .option('--header-text-column <column>', 'column for the text header variable')
  .option('--header-image-column <column>', 'column holding the https link of a media (image/video/document) header')
  .option('--button-url-column <columns>', 'columns for URL-button variables, in button order, comma-separated', list)
  .option('--default-country <CC>', 'ISO country for numbers written without a country code, e.g. DE')
  .option('--fix-whitespace', 'collapse line breaks, tabs and runs of spaces in values instead of rejecting the row')
  .option('--delimiter <char>', 'field delimiter: , ; | or tab (default: detected from the header)')
  .option('--phone-number-id <id>', 'send from this phone-number ID (default WHATSAPP_PHONE_NUMBER_ID)')
  .option(
    '--campaign <id>',
    'continue campaign ID with its own file: the file read again (an interrupted ingest finished), fixed (rows rejected or skipped before are checked again) or with rows added after its last one. Rows are matched by row number: a row the campaign queued or sent must name the same recipient (else CAMPAIGN_FILE_MISMATCH, nothing written); none is sent twice',
  )
  .option(
    '--allow-repeat',
    'send even messages this number already sent to the recipient within DUPLICATE_WINDOW_HOURS (skipped as ALREADY_SENT otherwise)',
  )
  .option(
    '--priority <level>',
    'high, normal or low: a higher campaign is fed to the workers first; campaigns of one level share the number (default normal)',
  )
  .option('--at <time>', 'start sending then (ISO 8601 with offset, e.g. 2026-12-01T09:00:00+01:00); the file is read and checked now')
  .option('--start-deadline <time>', 'if it has not started by then (no worker ran), cancel it instead (ISO 8601 with offset)')
  .option('--expires-at <time>', 'rows not sent by then become expired and are never sent (ISO 8601 with offset)')
  .option('--valid-for <duration>', 'rows expire this long after the start, e.g. 6h, 90m, 2d (instead of --expires-at)')
  .option(
    '--window <HH:MM-HH:MM>',
    "send only inside these hours of each recipient's local day, e.g. 09:00-20:00 (the zone comes from the number)",
  )
  .option('--days <days>', 'with --window: the local weekdays to send on, e.g. mon-fri or mon,wed,sat (default every day)')
  .option(
    '--timezone-column <column>',
    "with --window: column with each recipient's IANA time zone, e.g. Europe/Berlin (an empty cell: the number's)",
  )
  .option(
    '--default-timezone <zone>',
    "with --window: the IANA zone of rows whose number gives none, or whose number's zones never share an open hour of the window (else skipped as WINDOW_NEVER_OPEN), e.g. America/New_York",
  )
  .option('--templates <file>', 'approved templates from this Meta list JSON instead of the registry source')
  .option(
    '--display-timezone <zone>',
    "show the plan's times in this IANA zone, e.g. Europe/Berlin (default: the offset typed in --at, else this machine's zone)",
  )
  .option('--dry-run', 'check everything and print the summary; create no campaign and no job')
  .option('--json', 'print a JSON summary')
  .action(async (file: string, o: SendFlags) => {
    const { runSend } = await import('./run/send.js');
    const { summaryJson, summaryText } = await import('./format.js');
    const { displayZoneOf } = await import('./display-zone.js');
    const { ingestInterruptedError, ingestNotices, stopOnSignals } = await import('./run/send-notices.js');
    // Checked before anything is created; the plan shows its times where the operator reads them.
    const zone = displayZoneOf({ displayTimezone: o.displayTimezone, typed: [o.at, o.expiresAt, o.startDeadline] });
    const stop = stopOnSignals();
    const notices = ingestNotices(file, process.argv.slice(2));
    const result = await withContext((context) =>
      runSend(context, {
        file,
        template: o.template,
        language: o.language,
        text: o.text,
        previewUrl: o.previewUrl,
        params: o.params,
        paramColumns: o.param,
        phoneColumn: o.phoneColumn,
        headerTextColumn: o.headerTextColumn,
        headerMediaColumn: o.headerImageColumn,
        buttonUrlColumns: o.buttonUrlColumn,
        defaultCountry: o.defaultCountry,
        fixWhitespace: o.fixWhitespace,
        delimiter: o.delimiter,
        phoneNumberId: o.phoneNumberId,
        campaignId: o.campaign,
        templatesFile: o.templates,
        dryRun: o.dryRun,
        allowRepeat: o.allowRepeat,
        priority: o.priority,
        window: o.window,
        days: o.days,
        timezoneColumn: o.timezoneColumn,
        defaultTimezone: o.defaultTimezone,
        schedule: { at: o.at, startDeadline: o.startDeadline, expiresAt: o.expiresAt, validFor: o.validFor },
        displayTimezone: o.displayTimezone,
        signal: stop.signal,
        onStart: notices.onStart,
        onProgress: notices.onProgress,
      }),
    ).finally(() => stop.release());
    // The plan's start is now for a campaign that starts at once (a continued one: the start it was created with).
    const startsNow = result.estimate.startsAt <= Date.now();
    // The plan's pace is the number's own rate (SEND_RATES), as its workers send.
    console.log(
      o.json === true ? JSON.stringify(summaryJson(result, result.sendRate)) : summaryText(result, result.sendRate, { zone, startsNow }),
    );
    const stoppedAt = result.interruptedAtRow;
    if (stoppedAt !== undefined) {
      console.error(
        result.dryRun
          ? `campaign: INGEST_INTERRUPTED: dry run stopped at row ${stoppedAt}; nothing was created`
          : `campaign: INGEST_INTERRUPTED: ${ingestInterruptedError(result.id, stoppedAt, file, process.argv.slice(2))}`,
      );
      process.exitCode = 130;
    }
  });

interface SendFlags {
  template?: string;
  language?: string;
  text?: string;
  previewUrl?: boolean;
  params?: string[];
  param: Record<string, string>;
  phoneColumn: string;
  headerTextColumn?: string;
  headerImageColumn?: string;
  buttonUrlColumn?: string[];
  defaultCountry?: string;
  fixWhitespace?: boolean;
  delimiter?: string;
  phoneNumberId?: string;
  campaign?: string;
  templates?: string;
  dryRun?: boolean;
  allowRepeat?: boolean;
  priority?: string;
  at?: string;
  startDeadline?: string;
  expiresAt?: string;
  validFor?: string;
  window?: string;
  days?: string;
  timezoneColumn?: string;
  defaultTimezone?: string;
  displayTimezone?: string;
  json?: boolean;
}

program
  .command('worker')
  .description(
    'run the rate-limited send workers until SIGTERM: one per phone number with campaigns (new numbers are picked up as their first campaign arrives), each at SEND_RATES or SEND_RATE',
  )
  .option('--phone-number-id <ids>', 'serve only these phone-number IDs, comma-separated (default: every number that has campaigns)')
  .action(async (o: { phoneNumberId?: string }) => {
    const phoneNumberIds = o.phoneNumberId === undefined ? undefined : phoneNumberIdList(o.phoneNumberId);
    const { runWorkerUntilSignal } = await import('../../workers/worker.js');
    await withContext((context) => runWorkerUntilSignal(context, { phoneNumberIds }), ['WHATSAPP_ACCESS_TOKEN']);
  });

program
  .command('status')
  .description('show a campaign state and counts')
  .argument('<id>', 'campaign ID')
  .option('--json', 'print JSON')
  .option(
    '--watch',
    'a live view, read once a second, until the campaign is completed or cancelled: progress bar, rate, ETA, counts (with --json: one JSON object per line, with rate and etaSeconds; Ctrl-C leaves it, exit 130)',
  )
  .action(async (id: string, o: { json?: boolean; watch?: boolean }) => {
    if (o.watch === true) {
      const { watchStatus } = await import('./run/status-watch.js');
      const outcome = await withContext((context) => watchStatus(context, id, { json: o.json === true, notFound: () => notFound(id) }));
      if (outcome === 'interrupted') process.exitCode = 130;
      return;
    }
    const { statusJson, statusText } = await import('./format.js');
    const { windowStatus } = await import('../campaigns/report/window-status.js');
    await withContext(async ({ ledger }) => {
      const status = await ledger.status(id);
      if (status === undefined) throw notFound(id);
      const definition = await ledger.getCampaign(id);
      const window = definition?.window;
      const windowed = window === undefined ? undefined : windowStatus(window, await ledger.laneBacklogs(id), Date.now());
      console.log(o.json === true ? JSON.stringify(statusJson(status, windowed, definition)) : statusText(status, windowed, definition));
    });
  });

program
  .command('report')
  .description('write the per-row CSV report of a campaign')
  .argument('<id>', 'campaign ID')
  .option(
    '--out <file>',
    'where to write it (default REPORTS_DIR/<id>.csv; - writes it to stdout); a file is replaced only once the new report is complete',
  )
  .action(async (id: string, o: { out?: string }) => {
    const { runReport } = await import('./run/report.js');
    const outcome = await withContext((context) => runReport(context, id, o.out));
    if (outcome.kind === 'file') console.log(`${outcome.path} (${outcome.lines} rows)`);
    if (outcome.kind === 'stopped') {
      console.error(`Report stopped; ${outcome.path === 'stdout' ? 'stdout has part of it' : `${outcome.path} was left as it was`}`);
      process.exitCode = 130;
    }
  });

program
  .command('list')
  .description('list campaigns with their state and counts')
  .option('--json', 'print JSON')
  .action(async (o: { json?: boolean }) => {
    const { statusJson, statusText } = await import('./format.js');
    await withContext(async ({ ledger }) => {
      const statuses = [];
      for (const id of await ledger.listCampaigns()) {
        const status = await ledger.status(id);
        if (status !== undefined) statuses.push({ status, definition: await ledger.getCampaign(id) });
      }
      // --json: one JSON array (empty when there are none), so it parses as one document.
      if (o.json === true) console.log(JSON.stringify(statuses.map(({ status, definition }) => statusJson(status, undefined, definition))));
      else
        console.log(
          statuses.length === 0
            ? 'No campaigns under this QUEUE_PREFIX.'
            : statuses.map(({ status, definition }) => statusText(status, undefined, definition)).join('\n'),
        );
    });
  });

program
  .command('pause')
  .description('stop feeding a campaign (sends in flight finish; jobs already fed park at once); `resume` continues it')
  .argument('<id>', 'campaign ID')
  .option('--reason <text>', 'shown by `campaign status`', 'paused by the operator')
  .action(async (id: string, o: { reason: string }) => {
    const { withControls } = await import('./run/controls.js');
    const result = await withContext((context) => withControls(context, (controls) => controls.pause(id, o.reason)));
    const head = result.alreadyPaused ? `Campaign ${id} was already paused` : `Campaign ${id} paused: no new send starts`;
    console.log(`${head}; \`campaign resume ${id}\` continues it`);
  });

program
  .command('resume')
  .description('continue a paused campaign: its rows are fed again, the parked ones first')
  .argument('<id>', 'campaign ID')
  .action(async (id: string) => {
    const { withControls } = await import('./run/controls.js');
    const result = await withContext((context) => withControls(context, (controls) => controls.resume(id)));
    console.log(`Campaign ${id} ${result.wasPaused ? 'resumed: its rows are fed to the workers again' : 'was not paused'}`);
  });

program
  .command('cancel')
  .description('stop a campaign for good: rows not yet sent become cancelled')
  .argument('<id>', 'campaign ID')
  .action(async (id: string) => {
    const { withControls } = await import('./run/controls.js');
    const result = await withContext((context) => withControls(context, (controls) => controls.cancel(id)));
    if (result.alreadyCancelled) {
      const why = result.reason === undefined ? '' : ` (${result.reason})`;
      const ended = result.finishedAt === undefined ? '' : `; it ended at ${new Date(result.finishedAt).toISOString()}`;
      console.log(`Campaign ${id} was already cancelled${why}${ended}; nothing changed`);
    } else {
      console.log(
        `Campaign ${id} cancelled: ${result.cancelled} rows not yet fed cancelled; rows already fed are cancelled as workers reach them`,
      );
    }
  });

program
  .command('reschedule')
  .description('move the start of a campaign that has not started yet')
  .argument('<id>', 'campaign ID')
  .requiredOption('--at <time>', 'the new start (ISO 8601 with offset, e.g. 2026-12-01T09:00:00+01:00)')
  .action(async (id: string, o: { at: string }) => {
    const { withControls } = await import('./run/controls.js');
    const { parseStart } = await import('./time-options.js');
    const startsAt = parseStart('--at', o.at, Date.now());
    await withContext((context) => withControls(context, (controls) => controls.reschedule(id, startsAt)));
    console.log(`Campaign ${id} now starts at ${new Date(startsAt).toISOString()}`);
  });

program
  .command('retry')
  .description('send chosen failed or unknown rows again (default: every failed row; unknown rows only with --unknown)')
  .argument('<id>', 'campaign ID')
  .option(
    '--codes <codes>',
    "only failed rows with these error codes, comma-separated: Meta's numeric codes, e.g. 131000,131016 (or ours from the report's error_code: WORKER_GAVE_UP, HTTP_502, TRANSPORT_CONNECT, JOB_PAYLOAD_INVALID)",
  )
  .option(
    '--unknown',
    'rows whose outcome is unknown (they may have been delivered: check before resending); alone: only those; with --codes: those and the failed rows with the codes',
  )
  .action(async (id: string, o: { codes?: string; unknown?: boolean }) => {
    const { withControls } = await import('./run/controls.js');
    const { parseRetryCodes } = await import('../campaigns/control/retry-codes.js');
    const selection = {
      codes: o.codes === undefined ? [] : parseRetryCodes(o.codes),
      // --unknown alone means unknown rows only; --codes picks failed rows.
      failed: o.unknown !== true || o.codes !== undefined,
      unknown: o.unknown === true,
    };
    const { retryProgressPrinter } = await import('./run/progress-lines.js');
    const result = await withContext((context) =>
      withControls(context, (controls) => controls.retry(id, selection, retryProgressPrinter())),
    );
    const lines = [
      `Campaign ${id}: ${result.requeued} rows put back in the queue${result.paused ? ' (the campaign is paused: they go out after `campaign resume`)' : ''}`,
    ];
    if (result.held > 0) {
      lines.push(
        `  ${result.held} rows failed with 131049 (Meta's ecosystem limit) less than 24 h ago and were left failed: a resend now only fails again; retry them from ${new Date(result.heldUntil).toISOString()}`,
      );
    }
    if (result.noPayload > 0)
      lines.push(
        `  ${result.noPayload} chosen rows were recorded by a version that kept their values only in the job; they were left as they are`,
      );
    console.log(lines.join('\n'));
  });

program
  .command('purge')
  .description("delete a finished campaign's personal data (rows, values, indexes, kept jobs); its counts stay")
  .argument('<id>', 'campaign ID')
  .action(async (id: string) => {
    const { purgeText, runPurge } = await import('../app/campaign-purge.js');
    console.log(purgeText(await withContext((context) => runPurge(context, id))));
  });

program
  .command('migrate-keys')
  .description("move the Redis keys of a version before the cluster layout to today's names (stop every worker and serve first)")
  .option('--dry-run', 'say what would move; move nothing', false)
  .option('--json', 'print the summary as JSON', false)
  .action(async (o: { dryRun: boolean; json: boolean }) => {
    const { runMigrateKeys, migrationText } = await import('./run/migrate-keys.js');
    const { openContext } = await import('../app/app-context.js');
    const context = await openContext([], {}, {}, { keyLayout: false });
    try {
      const summary = await runMigrateKeys(context, { dryRun: o.dryRun });
      console.log(o.json ? JSON.stringify({ dryRun: o.dryRun, ...summary }) : migrationText(summary, o.dryRun));
    } finally {
      await context.close();
    }
  });

const optouts = program
  .command('optouts')
  .description('the recipients who opted out of marketing on a number (MARKETING campaigns skip them as OPTED_OUT)');
optouts
  .command('list')
  .description('every opt-out of the number, with when and how it was learnt')
  .option('--phone-number-id <id>', 'the number (default WHATSAPP_PHONE_NUMBER_ID)')
  .option('--json', 'print JSON')
  .action(async (o: { phoneNumberId?: string; json?: boolean }) => {
    const { listOptOuts, optOutsText } = await import('./run/optouts.js');
    const list = await withContext((context) => listOptOuts(context, o));
    console.log(
      o.json === true
        ? JSON.stringify(
            list.optOuts.map((x) => ({
              phone: x.phone,
              at: new Date(x.source.at).toISOString(),
              via: x.source.via ?? '131050',
              campaignId: x.source.campaignId || null,
              row: x.source.row || null,
            })),
          )
        : optOutsText(list),
    );
  });
optouts
  .command('add')
  .description('opt a recipient out of marketing on the number')
  .argument('<phone>', 'the recipient, +<country><number>')
  .option('--phone-number-id <id>', 'the number (default WHATSAPP_PHONE_NUMBER_ID)')
  .action(async (phone: string, o: { phoneNumberId?: string }) => {
    const { addOptOut } = await import('./run/optouts.js');
    console.log(await withContext((context) => addOptOut(context, phone, o)));
  });
optouts
  .command('remove')
  .description('take a recipient off the opt-outs (only if they asked for marketing again)')
  .argument('<phone>', 'the recipient, +<country><number>')
  .option('--phone-number-id <id>', 'the number (default WHATSAPP_PHONE_NUMBER_ID)')
  .action(async (phone: string, o: { phoneNumberId?: string }) => {
    const { removeOptOut } = await import('./run/optouts.js');
    console.log(await withContext((context) => removeOptOut(context, phone, o)));
  });

program
  .command('sandbox')
  .description('run the local Cloud API sandbox')
  .option('--port <n>', 'port to listen on (0 = any free port)', '8089')
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option('--templates <file>', "approved templates (Meta list JSON; default TEMPLATES_FILE, else the package's samples/templates.json)")
  .addOption(new Option('--mps <n>', 'messages per second per phone number before 130429 (0 = unlimited)').default('80'))
  .option(
    '--webhook-url <url>',
    'post signed status webhooks (sent, delivered, read) for accepted sends to this URL, signed with WHATSAPP_APP_SECRET',
  )
  .option(
    '--phone-number-id <ids>',
    'phone-number IDs the sandbox has besides WHATSAPP_PHONE_NUMBER_ID, comma-separated (others are refused: 100, subcode 33)',
  )
  .option(
    '--messaging-limit-tier <tier>',
    'the messaging limit its numbers report (TIER_50, TIER_250, TIER_1K, TIER_2K, TIER_10K, TIER_100K, TIER_UNLIMITED); reported, not enforced',
    'TIER_UNLIMITED',
  )
  .option(
    '--retain-accepted <n>',
    'keep only the newest N accepted messages in memory (GET /_sandbox/accepted); stats still count every one (default: all)',
  )
  .action(
    async (o: {
      port: string;
      host: string;
      templates?: string;
      mps: string;
      webhookUrl?: string;
      phoneNumberId?: string;
      messagingLimitTier: string;
      retainAccepted?: string;
    }) => {
      const { runSandboxUntilSignal } = await import('../../workers/sandbox.js');
      const port = wholeNumberOption('--port', o.port, 65535);
      const messagesPerSecond = wholeNumberOption('--mps', o.mps, 1_000_000);
      await runSandboxUntilSignal({
        port,
        host: o.host,
        templatesFile: o.templates,
        messagesPerSecond,
        webhookUrl: o.webhookUrl,
        phoneNumberIds: o.phoneNumberId,
        messagingLimitTier: o.messagingLimitTier,
        retainAccepted:
          o.retainAccepted === undefined ? undefined : Math.max(1, wholeNumberOption('--retain-accepted', o.retainAccepted, 100_000_000)),
      });
    },
  );

program
  .command('serve')
  .description(
    'run the webhook service Meta posts delivery statuses and messages to (needs WHATSAPP_APP_SECRET and WEBHOOK_VERIFY_TOKEN); ' +
      'it also serves the campaigns page at / and the queue dashboard at /queues (basic auth with DASHBOARD_USER / DASHBOARD_PASSWORD when set), /metrics, /healthz and /readyz',
  )
  .option('--port <n>', 'port to listen on (0 = any free port)', '8080')
  .option('--host <host>', 'address to bind; anything but loopback (e.g. 0.0.0.0) needs DASHBOARD_PASSWORD', '127.0.0.1')
  .action(async (o: { port: string; host: string }) => {
    // Not withContext: the service must start (and say it is not ready) while Redis is down.
    const { runServeUntilSignal } = await import('../../workers/serve.js');
    await runServeUntilSignal({ port: wholeNumberOption('--port', o.port, 65535), host: o.host });
  });

program
  .command('demo')
  .description('send the sample campaign through an in-process sandbox and worker (on a private Redis when none answers)')
  // Not for users: tests point it at a closed port to run the demo as on a machine without Redis.
  .addOption(new Option('--default-redis-url <url>', 'where to look for Redis when REDIS_URL is unset').hideHelp())
  .action(async (o: { defaultRedisUrl?: string }) => {
    if (o.defaultRedisUrl !== undefined && !/^rediss?:\/\/\S+$/.test(o.defaultRedisUrl)) {
      throw new AppError(
        'OPTION_INVALID',
        `--default-redis-url "${o.defaultRedisUrl.slice(0, 80)}": give a redis:// URL, e.g. redis://127.0.0.1:6379`,
      );
    }
    const { runDemo } = await import('./run/demo.js');
    await runDemo({ defaultRedisUrl: o.defaultRedisUrl });
  });

const templatesCommand = program.command('templates').description('approved message templates: fetch them into the Redis cache, list them');

templatesCommand
  .command('sync')
  .description('fetch every template now (Cloud API, or TEMPLATES_FILE / --templates) and cache it in Redis')
  .option('--templates <file>', 'read this Meta list JSON instead of the Cloud API')
  .action(async (o: { templates?: string }) => {
    const { runTemplatesSync } = await import('./run/templates.js');
    console.log(await withContext((context) => runTemplatesSync(context, { file: o.templates })));
  });

templatesCommand
  .command('list')
  .description('list approved templates and the variables each needs (cached, refreshed after TEMPLATES_REFRESH_SECONDS)')
  .option('--templates <file>', 'read this Meta list JSON instead of the Cloud API')
  .option('--all', 'show every status, not only APPROVED')
  .option('--json', 'print JSON')
  .action(async (o: { templates?: string; all?: boolean; json?: boolean }) => {
    const { runTemplatesList } = await import('./run/templates.js');
    console.log(await withContext((context) => runTemplatesList(context, { file: o.templates, all: o.all, json: o.json })));
  });

function wholeNumberOption(name: string, value: string, max: number): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number > max)
    throw new AppError('OPTION_INVALID', `${name} "${value}": give a whole number from 0 to ${max}`);
  return number;
}

/** `--phone-number-id A,B` → the IDs, each Meta's all-digits form. */
function phoneNumberIdList(value: string): string[] {
  const ids = [
    ...new Set(
      value
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
  ];
  const bad = ids.find((id) => !/^\d{1,20}$/.test(id));
  if (ids.length === 0 || bad !== undefined) {
    throw new AppError(
      'OPTION_INVALID',
      `--phone-number-id "${(bad ?? value).slice(0, 40)}": give numeric phone-number IDs from WhatsApp Manager, comma-separated (e.g. 106540352242922,106540352242923)`,
    );
  }
  return ids;
}

function notFound(id: string): Error {
  return new AppError('CAMPAIGN_NOT_FOUND', `No campaign ${id} under this QUEUE_PREFIX (see \`campaign list\`)`);
}

oneLineUsageErrors(program);

try {
  followNpxParent();
  loadDotEnv();
  await program.parseAsync(process.argv);
} catch (error) {
  if (isHelpShown(error)) {
    process.exitCode = error.exitCode;
  } else {
    console.error(describeFailure(error));
    process.exitCode = exitCodeOf(error);
  }
}

/** package.json's version, for `campaign --version`. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Settings from `.env` in the working directory, when there is one; variables already set
 * in the environment win (process.loadEnvFile does not override them).
 */
function loadDotEnv(): void {
  if (!existsSync('.env')) return;
  try {
    process.loadEnvFile('.env');
  } catch (error) {
    throw new AppError(
      'CONFIG_INVALID',
      `.env in ${process.cwd()} cannot be read: ${(error as Error).message}. Fix or remove it (see .env.example).`,
      { cause: error },
    );
  }
}

/**
 * One line for the operator (a usage error adds one hint line), always with a stable code and
 * never a stack trace: an expected failure is an AppError; anything else is a bug, said
 * plainly, and its stack is printed only with LOG_LEVEL=debug.
 */
function describeFailure(error: unknown): string {
  if (error instanceof ArgumentError) return `campaign: ${error.code}: ${error.message}\n${error.hint}`;
  if (isAppError(error)) return `campaign: ${error.code}: ${error.message}`;
  const message = error instanceof Error ? error.message : String(error);
  const stack = process.env.LOG_LEVEL === 'debug' && error instanceof Error && error.stack !== undefined ? `\n${error.stack}` : '';
  return `campaign: INTERNAL_ERROR: ${message} (a bug: please report it with the command; LOG_LEVEL=debug shows where it failed)${stack}`;
}
