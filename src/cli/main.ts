import { existsSync } from 'node:fs';
import { ArgumentError, exitCodeOf, isHelpShown } from './usage-errors.js';
import { AppError, isAppError } from '../errors/app-error.js';
import { REDIS_FULL_ADVICE, isRedisOutOfMemory } from '../errors/redis-errors.js';
import { followNpxParent } from './npx-parent.js';
import { armDeadline, endWhenDone, oneShotCommand } from './command-deadline.js';
import { printable } from '../text/operator-text.js';
import { cliProgram } from './program.js';

/** Runs the command the words name; its failure is one line on stderr and an exit code, not a stack trace. */
async function run(): Promise<void> {
  const program = await cliProgram(process.argv.slice(2));
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
