import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SingleBar, Presets } from 'cli-progress';
import { writeReport } from '../src/campaigns/report/report.js';
import { summaryText, statusText } from '../src/cli/format.js';
import { loadTemplatesFile, startSandbox } from '../src/sandbox/index.js';
import { openContext } from './app-context.js';
import { runSend } from './send-command.js';
import { startWorker } from './worker-command.js';

const SAMPLES = fileURLToPath(new URL('../samples/', import.meta.url));
const DEMO_TOKEN = 'sandbox-demo-token';
const DEMO_PHONE_NUMBER_ID = '106540352242922';

/**
 * `npm run demo`: the whole product in one process. A sandbox Cloud API on a free port, a
 * worker at SEND_RATE, the sample CSV sent through both, a progress bar, then the report.
 */
export async function runDemo(): Promise<string> {
  const templates = await loadTemplatesFile(join(SAMPLES, 'templates.json'));
  const sandbox = await startSandbox({ templates, accessToken: DEMO_TOKEN });
  const context = await openContext(
    [],
    { WHATSAPP_API_URL: sandbox.url, WHATSAPP_ACCESS_TOKEN: DEMO_TOKEN, WHATSAPP_PHONE_NUMBER_ID: DEMO_PHONE_NUMBER_ID },
    // The progress bar owns the terminal: only warnings unless LOG_LEVEL says otherwise.
    { LOG_LEVEL: 'warn' },
  ).catch(async (error: unknown) => {
    await sandbox.close();
    throw error;
  });
  const worker = startWorker(context);
  try {
    console.log(`Sandbox Cloud API on ${sandbox.url}; sending at ${context.config.send.rate} messages/s.`);
    const summary = await runSend(context, {
      file: join(SAMPLES, 'recipients.csv'),
      template: 'order_update',
      language: 'en_US',
      params: ['first_name', 'order_id'],
      phoneColumn: 'phone',
      templatesFile: join(SAMPLES, 'templates.json'),
      // Each demo has a fresh sandbox: sending the samples again must not be ALREADY_SENT.
      allowRepeat: true,
    });
    console.log(summaryText(summary, context.config.send.rate));

    const bar = new SingleBar({ format: 'Sending |{bar}| {value}/{total} rows answered', hideCursor: true }, Presets.shades_classic);
    bar.start(summary.rows, 0);
    let status = await context.ledger.status(summary.id);
    // A paused campaign (e.g. the error-spike brake) would never complete: stop and say so.
    while (status !== undefined && status.state !== 'completed' && status.state !== 'paused' && status.state !== 'cancelled') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await context.ledger.status(summary.id);
      if (status !== undefined) {
        const c = status.counts;
        bar.update(c.sent + c.failed + c.rejected + c.skipped + c.unknown + c.cancelled);
      }
    }
    bar.stop();
    if (status !== undefined) console.log(statusText(status));
    const reportPath = join(context.config.reportsDir, `${summary.id}.csv`);
    await writeReport(context.ledger, summary.id, reportPath);
    console.log(`Report: ${reportPath}`);
    console.log(`The sandbox accepted ${sandbox.stats().accepted} messages.`);
    return summary.id;
  } finally {
    await worker.close();
    await context.close();
    await sandbox.close();
  }
}
