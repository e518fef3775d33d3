import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  program
    .command('retry')
    .description(
      'send chosen failed or unknown rows again (default: every failed row but those of 130472, ' +
        "Meta's experiment; unknown rows only with --unknown)",
    )
    .argument('<id>', 'campaign ID')
    .option(
      '--codes <codes>',
      "only failed rows with these error codes, comma-separated: Meta's numeric codes, e.g. 131000,131016 (or ours " +
        "from the report's error_code: WORKER_GAVE_UP, HTTP_502, TRANSPORT_CONNECT, JOB_PAYLOAD_INVALID)",
    )
    .option(
      '--unknown',
      'rows whose outcome is unknown (they may have been delivered: check before resending); alone: ' +
        'only those; with --codes: those and the failed rows with the codes',
    )
    .action(async (id: string, o: { codes?: string; unknown?: boolean }) => {
      const { cliControl } = await import('../run/controls.js');
      const { parseRetryCodes } = await import('../../campaigns/control/retry-codes.js');
      const { retrySelection } = await import('../../campaigns/control/retry-selection.js');
      const selection = retrySelection({ codes: o.codes === undefined ? undefined : parseRetryCodes(o.codes), unknown: o.unknown });
      const { retryProgressPrinter } = await import('../run/progress-lines.js');
      const result = await withContext((context) => cliControl(context, 'retry', id, { selection, onProgress: retryProgressPrinter() }));
      const lines = [
        `Campaign ${id}: ${result.requeued} rows put back in the ` +
          `queue${result.paused ? ' (the campaign is paused: they go out after `campaign resume`)' : ''}`,
      ];
      if (result.held > 0) {
        lines.push(
          `  ${result.held} rows failed with 131049 (Meta's ecosystem limit) less than 24 h ago and were left failed: ` +
            `a resend now only fails again; retry them from ${new Date(result.heldUntil).toISOString()}`,
        );
      }
      if (result.usMarketing > 0) {
        lines.push(
          `  ${result.usMarketing} rows of this MARKETING campaign failed with 131049 to US numbers and were left ` +
            'failed: Meta has paused marketing to the US, so a resend only fails again (only a campaign sent with ' +
            '--allow-us-marketing retries them)',
        );
      }
      if (result.optedOut > 0) {
        lines.push(
          `  ${result.optedOut} rows were left as they are: their recipient opted out of marketing from this business ` +
            '(131050, or an opt-out recorded since), so they are never sent again',
        );
      }
      if (result.experiment > 0) {
        lines.push(
          `  ${result.experiment} rows failed with 130472 (their recipient is part of Meta's experiment) and were left ` +
            'failed: a resend gets the same error (`--codes 130472` sends them again anyway)',
        );
      }
      if (result.noPayload > 0)
        lines.push(
          `  ${result.noPayload} chosen rows were recorded by a version that kept their values only in the job; they were left as they are`,
        );
      console.log(lines.join('\n'));
    });
}
