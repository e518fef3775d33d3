import { runCli } from './cli-process.js';

/** One command as its `--help` describes it: its long options and its subcommands. */
export interface CommandHelp {
  /** The words after `campaign`: [] for the root, ['optouts', 'add'] for a subcommand. */
  path: string[];
  /** Long options, `--help` left out (every command has it). */
  options: string[];
  subcommands: string[];
}

/** Reads commander's help text: the `Options:` and `Commands:` sections, first column only. */
export function parseHelp(path: string[], text: string): CommandHelp {
  const section = (title: string) => {
    const start = text.indexOf(`\n${title}:\n`);
    if (start < 0) return [];
    const rest = text.slice(start + title.length + 3);
    const end = rest.search(/\n\S/);
    // Entries start two spaces in; their wrapped descriptions further in.
    return (end < 0 ? rest : rest.slice(0, end)).split('\n').filter((line) => /^ {2}\S/.test(line));
  };
  const options = section('Options')
    .map((line) => /^ {2}(?:-\w, )?(--[a-z0-9][a-z0-9-]*)/.exec(line)?.[1])
    .filter((option): option is string => option !== undefined && option !== '--help');
  const subcommands = section('Commands')
    .map((line) => /^ {2}([a-z][a-z0-9-]*)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'help');
  return { path, options, subcommands };
}

/** Every command of the compiled `campaign`, found through `--help` from the root down. */
export async function allCommands(): Promise<CommandHelp[]> {
  const found: CommandHelp[] = [];
  let level: string[][] = [[]];
  while (level.length > 0) {
    const helps = await Promise.all(
      level.map(async (path) => {
        const result = await runCli([...path, '--help'], {});
        if (result.code !== 0) throw new Error(`campaign ${[...path, '--help'].join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
        return parseHelp(path, result.stdout);
      }),
    );
    found.push(...helps);
    level = helps.flatMap((help) => help.subcommands.map((name) => [...help.path, name]));
  }
  return found;
}
