// The help texts bin/campaign.js prints without loading the CLI's bundle: `campaign --help`,
// `campaign <command> [<subcommand>] --help` (or -h), `campaign help [<command>]`. Each is what the
// real program prints for those words, taken at build time from src/cli/program.ts (the
// definitions the CLI itself registers), so the two cannot drift apart within one build.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * Commander wraps help at the terminal's width, and at 80 columns when stdout is not a terminal
 * (a pipe, a file, a script): the texts are taken at 80, and bin/campaign.js serves them only then.
 */
const WIDTH = 80;

/** Commander's codes for help it printed (asked for with --help, or `help`). */
const HELP_SHOWN = new Set(['commander.helpDisplayed', 'commander.help']);

/** A word of the table's keys: a command name or a help flag, never a space. */
const WORD = /^-{0,2}[a-z][a-z0-9-]*$/;

/**
 * Builds src/cli/program.ts as the CLI is built (`options`: the CLI's esbuild options) into
 * `dir`, beside the CLI's bundle (its package.json and node_modules are found from there), hands
 * the module to `use`, then removes it.
 */
export async function withCliProgram(options, dir, use) {
  const file = `${dir}/.help-program.cjs`;
  try {
    await build({ ...options, entryPoints: ['src/cli/program.ts'], outfile: file, sourcemap: false });
    return await use(createRequire(import.meta.url)(file));
  } finally {
    rmSync(file, { force: true });
  }
}

/** Every (sub)command below `command`, with the words that name it. */
function* commandPaths(command, path = []) {
  yield { command, path };
  for (const sub of command.commands) yield* commandPaths(sub, [...path, sub.name()]);
}

/** The words to take a text for: each command's help flags (unless an option of its own took them), `help [command]`. */
function helpWords(program) {
  const words = [];
  for (const { command, path } of commandPaths(program)) {
    const own = new Set(command.options.flatMap((option) => [option.short, option.long]));
    for (const flag of ['--help', '-h']) if (!own.has(flag)) words.push([...path, flag]);
  }
  if (!program.commands.some((command) => command.name() === 'help')) {
    words.push(['help'], ...program.commands.map((command) => ['help', command.name()]));
  }
  return words;
}

/** What `campaign ARGS` prints, the CLI's program parsing them, when that is help on stdout and exit code 0; else undefined. */
async function helpOf(cliProgram, args, hasColors) {
  const program = await cliProgram(args);
  let out = '';
  let err = '';
  const output = {
    writeOut: (text) => (out += text),
    writeErr: (text) => (err += text),
    getOutHelpWidth: () => WIDTH,
    getErrHelpWidth: () => WIDTH,
    getOutHasColors: () => hasColors,
    getErrHasColors: () => hasColors,
  };
  for (const { command } of commandPaths(program)) command.configureOutput(output);
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (HELP_SHOWN.has(error?.code) && error.exitCode === 0 && err === '') return out;
  }
  return undefined;
}

/**
 * `{ width, texts, argv }`: `argv[words.join(' ')]` is the index in `texts` of what those words
 * print. A text that colour would change cannot be served from the table (the terminal decides
 * colour at run time), so the build fails rather than print something else than the CLI would.
 */
export async function helpTable(cliProgram) {
  const texts = [];
  const argv = {};
  for (const args of helpWords(await cliProgram([]))) {
    if (!args.every((word) => WORD.test(word))) continue;
    const text = await helpOf(cliProgram, args, false);
    if (text === undefined) continue;
    if ((await helpOf(cliProgram, args, true)) !== text) {
      throw new Error(
        `scripts/help-texts.mjs: \`campaign ${args.join(' ')}\` prints other help in colour; bin/campaign.js could not serve it`,
      );
    }
    if (!texts.includes(text)) texts.push(text);
    argv[args.join(' ')] = texts.indexOf(text);
  }
  if (argv['--help'] === undefined) throw new Error('scripts/help-texts.mjs: `campaign --help` printed no help');
  return { width: WIDTH, texts, argv };
}
