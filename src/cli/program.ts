import { Command } from 'commander';
import { packageVersion } from '../files/package-version.js';
import { oneLineUsageErrors } from './usage-errors.js';

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

/** The top-level command names (the build names a compile cache after each). */
export const COMMAND_NAMES: readonly string[] = [...COMMANDS.keys()];

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

/**
 * `campaign` with the definitions `args` need, each (sub)command's usage errors made one line.
 * The CLI parses its words with it; the build renders every help text with it (scripts/help-texts.mjs).
 */
export async function cliProgram(args: readonly string[]): Promise<Command> {
  const program = new Command('campaign')
    .description('Send WhatsApp template campaigns from CSV files through the Cloud API.')
    .version(packageVersion(), '-V, --version', 'print the version');
  for (const definition of await definitionsFor(args)) definition.register(program);
  oneLineUsageErrors(program);
  return program;
}
