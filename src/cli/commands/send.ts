import type { Command } from 'commander';
import type { SendOptions } from '../run/send.js';
import type { MessageFlags } from '../message-flags.js';
import { collectParam, list } from '../option-values.js';
import { withContext } from '../with-context.js';

const MAX_COST_HELP =
  'refuse the campaign (COST_ABOVE_MAX, nothing queued) when its estimated cost by the rate card (RATE_CARD_FILE) is ' +
  "above this amount in the card's currency, or cannot be estimated; the file is read twice";

export function register(program: Command): void {
  const send = program
    .command('send')
    .description('check a CSV against an approved template (or fill a --text), then queue one job per valid row')
    .argument('<file>', 'CSV file with a header row')
    .option(
      '--name <text>',
      "the campaign's name, shown beside its ID (at most 100 characters; default: the file's name without .csv). " +
        '--campaign keeps the name it was created with',
    )
    .option('--template <name>', 'approved template name (with --language; or use --text)')
    .option('--language <code>', 'template language code, e.g. en_US')
    .option(
      '--text <body>',
      'send this free-form text instead of a template; {{column}} is filled from that CSV column. Only recipients who ' +
        'wrote to the number in the last 24 hours get it (others: WINDOW_CLOSED); at most 4,096 characters',
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
      'continue campaign ID with its own file: the file read again (an interrupted ingest finished), fixed (rows rejected ' +
        'or skipped before are checked again) or with rows added after its last one. Rows are matched by row number: a row the ' +
        'campaign queued or sent must name the same recipient (else CAMPAIGN_FILE_MISMATCH, nothing written); none is sent twice',
    )
    .option(
      '--allow-repeat',
      'send even messages this number already sent to the recipient within DUPLICATE_WINDOW_HOURS (skipped as ALREADY_SENT otherwise)',
    )
    .option(
      '--allow-us-marketing',
      'send a MARKETING template to US numbers too, once Meta lifts its pause (skipped as MARKETING_US_PAUSED ' +
        'otherwise: Meta fails them with 131049)',
    )
    .option(
      '--endpoint <name>',
      "messages (default) or marketing-messages: post each row to Meta's Marketing Messages API (/marketing_messages), " +
        'MARKETING templates only',
    )
    .option(
      '--ttl <duration>',
      'with --endpoint marketing-messages: how long Meta keeps trying to deliver each message, 12h to 30d (e.g. 36h, 7d); ' +
        'Meta keeps it on the template, so it is set on the template for all its sends',
    )
    .option(
      '--priority <level>',
      'high, normal or low: a higher campaign is fed to the workers first; campaigns of one level share the number (default normal)',
    );
  scheduleOptions(send)
    .option('--templates <file>', 'approved templates from this Meta list JSON instead of the registry source')
    .option(
      '--display-timezone <zone>',
      "show the plan's times in this IANA zone, e.g. Europe/Berlin (default: the offset typed in --at, else this machine's zone)",
    )
    .option('--max-cost <amount>', MAX_COST_HELP)
    .option('--dry-run', 'check everything and print the summary; create no campaign and no job')
    .option('--json', 'print a JSON summary')
    .action(sendCampaign);
}

/** When and in which hours it sends: the schedule and the send window. */
function scheduleOptions(command: Command): Command {
  return command
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
      "with --window: the IANA zone of rows whose number gives none, or whose number's zones never share an " +
        'open hour of the window (else skipped as WINDOW_NEVER_OPEN), e.g. America/New_York',
    );
}

interface SendFlags extends MessageFlags {
  name?: string;
  phoneColumn: string;
  defaultCountry?: string;
  fixWhitespace?: boolean;
  delimiter?: string;
  phoneNumberId?: string;
  campaign?: string;
  templates?: string;
  dryRun?: boolean;
  allowRepeat?: boolean;
  allowUsMarketing?: boolean;
  endpoint?: string;
  ttl?: string;
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
  maxCost?: string;
  json?: boolean;
}

/** `campaign send FILE`: checks and queues the file, prints the plan; an interrupted read exits 130. */
async function sendCampaign(file: string, o: SendFlags): Promise<void> {
  const { runSend } = await import('../run/send.js');
  const { summaryJson, summaryText } = await import('../format.js');
  const { displayZoneOf } = await import('../../campaigns/spec/display-zone.js');
  const { ingestInterruptedError, ingestNotices, stopOnSignals } = await import('../run/send-notices.js');
  // Checked before anything is created; the plan shows its times where the operator reads them.
  const zone = displayZoneOf({ displayTimezone: o.displayTimezone, typed: [o.at, o.expiresAt, o.startDeadline] });
  const stop = stopOnSignals();
  const notices = ingestNotices(file, process.argv.slice(2));
  const options = await sendOptionsOf(file, o);
  const result = await withContext((context) =>
    runSend(context, {
      ...options,
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
}

/** The flags as the send runner's options: the same mapping as the HTTP API's JSON form (specOptionsOfFlags). */
async function sendOptionsOf(file: string, o: SendFlags): Promise<Omit<SendOptions, 'signal' | 'onStart' | 'onProgress'>> {
  const { specOptionsOfFlags } = await import('../../campaigns/spec/campaign-flags.js');
  return { file, ...specOptionsOfFlags(o), templatesFile: o.templates, maxCost: o.maxCost };
}
