import { loadConfig } from '../src/config/config.js';
import { AppError } from '../src/errors/app-error.js';
import { createLogger } from '../src/logging/logger.js';
import { loadTemplatesFile } from '../src/templates/templates-file.js';

/** The token the sandbox accepts when WHATSAPP_ACCESS_TOKEN is not set: it guards nothing real. */
export const DEFAULT_SANDBOX_TOKEN = 'sandbox-token';

/** `campaign sandbox`: a local Cloud API until SIGTERM/SIGINT. */
export async function runSandboxUntilSignal(options: {
  port: number;
  host: string;
  templatesFile: string;
  messagesPerSecond: number;
}): Promise<void> {
  checkListenOptions(options);
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const templates = await loadTemplatesFile(options.templatesFile);
  const accessToken = config.accessToken?.reveal() ?? DEFAULT_SANDBOX_TOKEN;
  // Loaded only once the options, settings and templates are known good: a mistake in
  // any of them is reported without paying for fastify.
  const { startSandbox } = await import('../src/sandbox/index.js');
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

/**
 * The options as the CLI parsed them, checked before anything starts: a bad one is the
 * operator's to fix (OPTION_INVALID), not a RangeError from deep inside start-up. An empty
 * --host (an unset shell variable) would bind every address and print an unusable URL.
 */
function checkListenOptions(options: { port: number; host: string; messagesPerSecond: number }): void {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new AppError('OPTION_INVALID', `--port ${options.port}: give a whole number from 0 to 65535 (0 picks a free one)`);
  }
  if (!Number.isInteger(options.messagesPerSecond) || options.messagesPerSecond < 0) {
    throw new AppError('OPTION_INVALID', `--mps ${options.messagesPerSecond}: give a whole number, 0 or more (0 = unlimited)`);
  }
  if (options.host.trim() === '') {
    throw new AppError('OPTION_INVALID', '--host is empty: give an address of this host, e.g. 127.0.0.1 (0.0.0.0 listens on every one)');
  }
}
