import { Option, type Command } from 'commander';
import { wholeNumberOption } from '../option-values.js';

export function register(program: Command): void {
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
      'the messaging limit its numbers report (TIER_50, TIER_250, TIER_1K, TIER_2K, TIER_10K, ' +
        'TIER_100K, TIER_UNLIMITED); reported, not enforced',
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
        const { runSandboxUntilSignal } = await import('../../../workers/sandbox.js');
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
}
