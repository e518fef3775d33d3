import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/logging/logger.js';
import { loadTemplatesFile, startSandbox } from '../src/sandbox/index.js';

/** The token the sandbox accepts when WHATSAPP_ACCESS_TOKEN is not set: it guards nothing real. */
export const DEFAULT_SANDBOX_TOKEN = 'sandbox-token';

/** `campaign sandbox`: a local Cloud API until SIGTERM/SIGINT. */
export async function runSandboxUntilSignal(options: {
  port: number;
  host: string;
  templatesFile: string;
  messagesPerSecond: number;
}): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const templates = await loadTemplatesFile(options.templatesFile);
  const accessToken = config.accessToken?.reveal() ?? DEFAULT_SANDBOX_TOKEN;
  const sandbox = await startSandbox({
    port: options.port,
    host: options.host,
    templates,
    accessToken,
    messagesPerSecond: options.messagesPerSecond,
    logger,
  });
  const tokenNote = config.accessToken === undefined ? `token "${DEFAULT_SANDBOX_TOKEN}"` : 'the token in WHATSAPP_ACCESS_TOKEN';
  console.log(`Sandbox Cloud API listening on ${sandbox.url} (${templates.length} templates, accepts ${tokenNote})`);
  await new Promise<void>((resolve) => {
    const stop = () => void sandbox.close().then(resolve);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
