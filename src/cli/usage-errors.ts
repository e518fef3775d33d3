import { CommanderError, type Command } from 'commander';
import { AppError, isAppError } from '../errors/app-error.js';

/**
 * Exit codes of `campaign`: 0 done, 1 failed (any other error code), 2 the command was typed
 * wrong (one of USAGE_ERROR_CODES: fix the command and run it again), 130 stopped by Ctrl-C.
 */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Error codes that mean "the command line is wrong" rather than "the work failed". */
export const USAGE_ERROR_CODES: readonly string[] = [
  'ARGUMENT_INVALID',
  'OPTION_INVALID',
  'TEXT_CONTROL_CHARACTER',
  'TIME_INVALID',
  'TIME_IN_PAST',
  'TIME_TOO_FAR_AHEAD',
  'TIME_NOT_AFTER_START',
  'TIMEZONE_NOT_FOUND',
  'TEMPLATE_NOT_MARKETING',
  'PHONE_NOT_IN_PLAN',
  'AUDIENCE_NAME_INVALID',
  'AUDIENCE_WHERE_INVALID',
  'TEST_SEND_INVALID',
  'HOOK_INVALID',
  'CLICK_TRACKING_INVALID',
];

/** ARGUMENT_INVALID, with the one hint line that follows it: which help to read. */
export class ArgumentError extends AppError {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super('ARGUMENT_INVALID', message);
  }
}

/** The exit code for a failure (an AppError, or anything else: a bug). */
export function exitCodeOf(error: unknown): number {
  return isAppError(error) && USAGE_ERROR_CODES.includes(error.code) ? EXIT_USAGE : EXIT_FAILURE;
}

const HELP_SHOWN = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/** Commander showed help or the version (asked for, or `campaign` alone): not a failure to describe. */
export function isHelpShown(error: unknown): error is CommanderError {
  return error instanceof CommanderError && HELP_SHOWN.has(error.code);
}

/**
 * Commander's own usage errors (unknown option or command, missing argument or required
 * option, a value its parser refused) become one ArgumentError naming the (sub)command, thrown
 * out of parseAsync to the CLI's one failure handler, instead of `error: …` and the whole
 * usage. Call once every command is defined: each command gets its own handler, so the hint
 * names the one that was typed wrong (`see campaign optouts add --help`).
 */
export function oneLineUsageErrors(program: Command): void {
  for (const command of commandTree(program)) {
    command.configureOutput({ outputError: () => undefined });
    command.exitOverride((error) => {
      if (HELP_SHOWN.has(error.code)) throw error;
      throw new ArgumentError(oneLine(error.message), `see ${fullName(command)} --help`);
    });
  }
}

function* commandTree(command: Command): Generator<Command> {
  yield command;
  for (const sub of command.commands) yield* commandTree(sub);
}

function fullName(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** `error: unknown option '--nope'\n(Did you mean --json?)` → `unknown option '--nope' (did you mean --json?)`. */
function oneLine(message: string): string {
  return message
    .replace(/^error:\s*/, '')
    .replace(/\s*\n\s*\(Did you mean/g, ' (did you mean')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}
