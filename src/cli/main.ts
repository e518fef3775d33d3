import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { ArgumentError, exitCodeOf, isHelpShown, oneLineUsageErrors } from './usage-errors.js';
import { AppError, isAppError } from '../errors/app-error.js';
import { packageVersion } from '../files/package-version.js';
import { REDIS_FULL_ADVICE, isRedisOutOfMemory } from '../errors/redis-errors.js';
import { followNpxParent } from './npx-parent.js';
import { armDeadline, endWhenDone, oneShotCommand } from './command-deadline.js';
import { printable } from '../text/operator-text.js';

// Each command file holds only its definition; what it runs is loaded by its action (a dynamic
// import), so `campaign send` does not pay for fastify and the sandbox, which is start-up time
// and memory on every invocation.

interface CommandDefinition {
  register(program: Command): void;
}

/** Every command's definition, in the order `campaign --help` lists them. */
const COMMANDS: ReadonlyMap<string, () => Promise<CommandDefinition>> = new Map([
  ['send', () => import('./commands/send.js')],
  ['worker', () => import('./commands/worker.js')],
  ['status', () => import('./commands/status.js')],
  ['report', () => import('./commands/report.js')],
  ['list', () => import('./commands/list.js')],
  ['pause', () => import('./commands/pause.js')],
  ['resume', () => import('./commands/resume.js')],
  ['cancel', () => import('./commands/cancel.js')],
  ['reschedule', () => import('./commands/reschedule.js')],
  ['retry', () => import('./commands/retry.js')],
  ['retarget', () => import('./commands/retarget.js')],
  ['purge', () => import('./commands/purge.js')],
  ['optouts', () => import('./commands/optouts.js')],
  ['audiences', () => import('./commands/audiences.js')],
  ['consent', () => import('./commands/consent.js')],
  ['tokens', () => import('./commands/tokens.js')],
  ['hooks', () => import('./commands/hooks.js')],
  ['sandbox', () => import('./commands/sandbox.js')],
  ['serve', () => import('./commands/serve.js')],
  ['demo', () => import('./commands/demo.js')],
  ['templates', () => import('./commands/templates.js')],
  ['costs', () => import('./commands/costs.js')],
]);

/**
 * The definitions to load: only the one named (`campaign send …`), or every one when the words
 * name none (`--help`, `help send`, a typo: the command list and did-you-mean need them all).
 * Each file is an ES module of its own, and each costs the start-up of every invocation.
 */
async function definitionsFor(args: readonly string[]): Promise<CommandDefinition[]> {
  const first = args.find((word) => !word.startsWith('-'));
  const named = first === undefined ? undefined : COMMANDS.get(first);
  return Promise.all(named === undefined ? [...COMMANDS.values()].map((load) => load()) : [named()]);
}

/** Runs the command the words name; its failure is one line on stderr and an exit code, not a stack trace. */
async function run(): Promise<void> {
  const program = new Command('campaign')
    .description('Send WhatsApp template campaigns from CSV files through the Cloud API.')
    .version(packageVersion(), '-V, --version', 'print the version');
  for (const definition of await definitionsFor(process.argv.slice(2))) definition.register(program);

  oneLineUsageErrors(program);

  const oneShot = oneShotCommand(process.argv.slice(2));
  if (oneShot !== undefined) armDeadline(oneShot);
  try {
    followNpxParent();
    loadDotEnv();
    await program.parseAsync(process.argv);
  } catch (error) {
    if (isHelpShown(error)) {
      process.exitCode = error.exitCode;
    } else {
      // A message may quote what the operator or a file gave (a name, a value): each line printed neutralised.
      console.error(describeFailure(error).split('\n').map(printable).join('\n'));
      process.exitCode = exitCodeOf(error);
    }
  }
  // A failed command ends as soon as a finished one: a handle its failure left open must not keep it waiting.
  if (oneShot !== undefined) endWhenDone();
}

// No top-level await: the start-up bundle (scripts/bundle-cli.mjs) is CommonJS, for its compile cache.
void run();

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
  if (isRedisOutOfMemory(error))
    return `campaign: REDIS_FULL: Redis is out of memory (maxmemory reached) and refused the write whole. ${REDIS_FULL_ADVICE}.`;
  const message = error instanceof Error ? error.message : String(error);
  const stack = process.env.LOG_LEVEL === 'debug' && error instanceof Error && error.stack !== undefined ? `\n${error.stack}` : '';
  return `campaign: INTERNAL_ERROR: ${message} (a bug: please report it with the command; LOG_LEVEL=debug shows where it failed)${stack}`;
}
