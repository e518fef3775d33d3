import { ingestProgressPrinter } from './progress-lines.js';

/**
 * What `campaign send` tells the operator on stderr while it reads a file, and how it stops:
 * the campaign ID and how to stop it before the first row, progress every 2 s, and on
 * Ctrl-C / SIGTERM an orderly stop (what was read is kept, the campaign pauses) with the
 * command that continues it.
 */

const write = (line: string) => process.stderr.write(`${line}\n`);

/** A command line as the operator can paste it back: arguments with shell characters quoted. */
function shellLine(args: readonly string[]): string {
  return args.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** The `campaign send` command that continues this campaign: the same arguments, with `--campaign ID`. */
export function continueCommand(id: string, argv: readonly string[]): string {
  const args = argv.some((arg) => arg === '--campaign' || arg.startsWith('--campaign=')) ? [...argv] : [...argv, '--campaign', id];
  return `campaign ${shellLine(args)}`;
}

export function ingestInterruptedError(id: string, row: number, file: string, argv: readonly string[]): string {
  return (
    `reading ${file} stopped at row ${row}; campaign ${id} keeps the ${row} rows read and ` +
    `is paused ("ingest interrupted at row ${row}"), ` +
    `so nothing more is sent. Continue it (rows already read are not sent twice) with:\n  ${continueCommand(id, argv)}\n` +
    `or end it with:\n  campaign cancel ${id}`
  );
}

export function ingestNotices(file: string, argv: readonly string[]) {
  let estimated = 0;
  const progress = ingestProgressPrinter(() => estimated, write);
  return {
    onStart: (start: { id: string; estimatedRows: number; continuing: boolean; dryRun: boolean }): void => {
      estimated = start.estimatedRows;
      const size = `about ${start.estimatedRows.toLocaleString('en-US')} rows`;
      if (start.dryRun) {
        write(`Dry run: checking ${file} (${size}); nothing is created.`);
        return;
      }
      const head = start.continuing ? `Continuing campaign ${start.id}` : `Campaign ${start.id}`;
      write(
        `${head}: reading ${file} (${size}). Ctrl-C stops reading and pauses the campaign; ` +
          `\`${continueCommand(start.id, argv)}\` then continues it, \`campaign cancel ${start.id}\` ends it.`,
      );
    },
    onProgress: progress,
  };
}

/**
 * The first SIGINT or SIGTERM aborts the signal (the producer stops at the next row and
 * pauses the campaign, which takes a moment); a second one says so again; a third quits at
 * once. `release` removes the handlers when the command ends.
 */
export function stopOnSignals(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  let count = 0;
  const onSignal = (name: NodeJS.Signals) => {
    count++;
    if (count === 1) {
      write(`${name}: stopping: the rows read so far are being recorded, then the campaign pauses…`);
      controller.abort();
    } else if (count === 2) {
      write('still stopping (the campaign is being paused); a third signal quits at once and may leave it sending');
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
