import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { ArgumentError, exitCodeOf, isHelpShown, oneLineUsageErrors } from './usage-errors.js';
import { AppError, isAppError } from '../errors/app-error.js';
import { packageRoot } from '../files/package-root.js';
import { followNpxParent } from './npx-parent.js';
import * as send from './commands/send.js';
import * as worker from './commands/worker.js';
import * as status from './commands/status.js';
import * as report from './commands/report.js';
import * as list from './commands/list.js';
import * as pause from './commands/pause.js';
import * as resume from './commands/resume.js';
import * as cancel from './commands/cancel.js';
import * as reschedule from './commands/reschedule.js';
import * as retry from './commands/retry.js';
import * as purge from './commands/purge.js';
import * as migrateKeys from './commands/migrate-keys.js';
import * as optouts from './commands/optouts.js';
import * as sandbox from './commands/sandbox.js';
import * as serve from './commands/serve.js';
import * as demo from './commands/demo.js';
import * as templates from './commands/templates.js';

// Each command file holds only its definition; what it runs is loaded by its action (a dynamic
// import), so `campaign send` does not pay for fastify and the sandbox, which is start-up time
// and memory on every invocation.

/** In the order `campaign --help` lists them. */
const COMMANDS: readonly { register(program: Command): void }[] = [
  send,
  worker,
  status,
  report,
  list,
  pause,
  resume,
  cancel,
  reschedule,
  retry,
  purge,
  migrateKeys,
  optouts,
  sandbox,
  serve,
  demo,
  templates,
];

const program = new Command('campaign')
  .description('Send WhatsApp template campaigns from CSV files through the Cloud API.')
  .version(packageVersion(), '-V, --version', 'print the version');
for (const command of COMMANDS) command.register(program);

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
