import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { allCommands, parseHelp, type CommandHelp } from '../support/cli-help.js';
import { headings } from '../support/markdown.js';

/**
 * docs/cli.md against the compiled `campaign` (run `npm run build` first, as `npm test`
 * does): each command has a heading `` `campaign <command>` `` whose section opens with a
 * code block, its synopsis, naming exactly the command's options; and no heading names a
 * command that does not exist.
 */
const CLI_MD = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');

interface CommandSection {
  command: string;
  /** The section's own lines, up to the next heading. */
  body: string[];
}

function commandSections(markdown: string): CommandSection[] {
  const lines = markdown.split('\n');
  const all = headings(markdown);
  return all.flatMap((heading, i) => {
    const command = /^campaign(?: [a-z][a-z0-9 -]*)?$/.exec(heading.text)?.[0];
    if (command === undefined || !lines[heading.line]?.includes('`')) return [];
    return [{ command, body: lines.slice(heading.line + 1, all[i + 1]?.line ?? lines.length) }];
  });
}

/** The options the section's first code block names, or undefined when it has none. */
function synopsisOptions(body: string[]): string[] | undefined {
  const open = body.findIndex((line) => /^\s*```/.test(line));
  if (open < 0) return undefined;
  const close = body.findIndex((line, i) => i > open && /^\s*```/.test(line));
  const block = body.slice(open + 1, close < 0 ? body.length : close).join('\n');
  return [...new Set([...block.matchAll(/(?<![\w-])(--[a-z0-9][a-z0-9-]*)/g)].map((m) => m[1] ?? ''))];
}

/** Every way docs/cli.md disagrees with the commands, one line each. */
function disagreements(markdown: string, commands: CommandHelp[]): string[] {
  const sections = new Map(commandSections(markdown).map((s) => [s.command, s]));
  const problems: string[] = [];
  for (const { path, options, subcommands } of commands) {
    const name = ['campaign', ...path].join(' ');
    if (path.length === 0) {
      for (const option of options) if (!markdown.includes(option)) problems.push(`${name} ${option} is not in docs/cli.md`);
      continue;
    }
    const section = sections.get(name);
    if (section === undefined) {
      problems.push(`no heading \`${name}\``);
      continue;
    }
    const listed = synopsisOptions(section.body);
    if (listed === undefined) {
      if (options.length > 0 || subcommands.length === 0) problems.push(`\`${name}\` has no synopsis (a code block after its heading)`);
      continue;
    }
    for (const option of options) if (!listed.includes(option)) problems.push(`\`${name}\`'s synopsis lacks ${option}`);
    for (const option of listed) {
      if (!options.includes(option)) problems.push(`\`${name}\`'s synopsis names ${option}, which the command does not have`);
    }
  }
  const known = new Set(commands.map((c) => ['campaign', ...c.path].join(' ')));
  for (const command of sections.keys()) if (!known.has(command)) problems.push(`heading \`${command}\` names no command`);
  return problems;
}

describe('docs/cli.md', () => {
  let commands: CommandHelp[] = [];
  beforeAll(async () => {
    commands = await allCommands();
  });

  it('finds the commands through --help, subcommands included', () => {
    const names = commands.map((c) => c.path.join(' '));
    expect(names).toEqual(expect.arrayContaining(['', 'send', 'worker', 'optouts', 'optouts add', 'templates list']));
    const send = commands.find((c) => c.path.join(' ') === 'send');
    expect(send?.options).toEqual(expect.arrayContaining(['--template', '--dry-run', '--json']));
  });

  it('has a section for every command whose synopsis names exactly its options', () => {
    expect(disagreements(CLI_MD, commands)).toEqual([]);
  });

  it('sees a missing option, an option the command lacks, a missing command and a stale one', () => {
    const broken = CLI_MD.replace('[--messaging-limit-tier TIER_UNLIMITED]', '[--tier T]')
      .replace('## `campaign purge`', '## Purge')
      .concat('\n## `campaign forget`\n\n```\ncampaign forget ID\n```\n');
    expect(disagreements(broken, commands).sort()).toEqual(
      [
        "`campaign sandbox`'s synopsis lacks --messaging-limit-tier",
        "`campaign sandbox`'s synopsis names --tier, which the command does not have",
        'no heading `campaign purge`',
        'heading `campaign forget` names no command',
      ].sort(),
    );
  });
});

describe('reading --help', () => {
  it('takes the first column of Options and Commands, not wrapped descriptions', () => {
    const text = [
      'Usage: campaign optouts [options] [command]',
      '',
      'Options:',
      '  -x, --example <n>  something long that wraps',
      '                     onto --not-an-option here',
      '  -h, --help         display help for command',
      '',
      'Commands:',
      '  list [options]     every opt-out',
      '  help [command]     display help for command',
      '',
    ].join('\n');
    expect(parseHelp(['optouts'], text)).toEqual({ path: ['optouts'], options: ['--example'], subcommands: ['list'] });
  });
});
