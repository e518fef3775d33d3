import type { Command } from 'commander';
import { wholeNumberOption } from '../option-values.js';

export function register(program: Command): void {
  program
    .command('serve')
    .description(
      'run the webhook service Meta posts delivery statuses and messages to (needs WHATSAPP_APP_SECRET and WEBHOOK_VERIFY_TOKEN); ' +
        'it also serves the campaigns page at / and the queue dashboard at /queues (basic auth with ' +
        'DASHBOARD_USER / DASHBOARD_PASSWORD when set), /metrics, /healthz and /readyz',
    )
    .option('--port <n>', 'port to listen on (0 = any free port)', '8080')
    .option('--host <host>', 'address to bind; anything but loopback (e.g. 0.0.0.0) needs DASHBOARD_PASSWORD', '127.0.0.1')
    .action(async (o: { port: string; host: string }) => {
      // Not withContext: the service must start (and say it is not ready) while Redis is down.
      const { runServeUntilSignal } = await import('../../../workers/serve.js');
      await runServeUntilSignal({ port: wholeNumberOption('--port', o.port, 65535), host: o.host });
    });
}
