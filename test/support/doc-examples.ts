/**
 * The runnable examples of a Markdown page: every ```sh block whose first line is
 * `# example: NAME`. A block's `# prints: TEXT` lines are what it prints on stdout, one line
 * each, in order (blank lines left out); `…` in TEXT stands for any text.
 */
export interface DocExample {
  name: string;
  /** The block's text, as a reader would paste it. */
  script: string;
  prints: string[];
  /** 1-based line of the block's first line in the page, for messages. */
  line: number;
}

export function shellExamples(markdown: string): DocExample[] {
  const lines = markdown.split('\n');
  const examples: DocExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```sh') continue;
    const close = lines.findIndex((line, j) => j > i && line.trim() === '```');
    const body = lines.slice(i + 1, close < 0 ? lines.length : close);
    const name = /^# example: (\S+)\s*$/.exec(body[0] ?? '')?.[1];
    if (name !== undefined) {
      const prints = body.flatMap((line) => /^# prints: (.*)$/.exec(line)?.slice(1) ?? []);
      examples.push({ name, script: body.join('\n'), prints, line: i + 2 });
    }
    i = close < 0 ? lines.length : close;
  }
  return examples;
}

/** Why `output` is not what the example says it prints, or undefined when it is. */
export function printsDisagreement(prints: readonly string[], output: string): string | undefined {
  const got = output
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');
  const wanted = prints.map((line) => line.trimEnd());
  const bad = Math.max(got.length, wanted.length);
  for (let i = 0; i < bad; i++) {
    const want = wanted[i];
    const line = got[i];
    if (want === undefined) return `printed more than it says: line ${i + 1} is ${JSON.stringify(line)}`;
    if (line === undefined) return `printed ${got.length} lines; line ${i + 1} should be ${JSON.stringify(want)}`;
    if (!patternOf(want).test(line)) return `line ${i + 1} is ${JSON.stringify(line)}; the page says ${JSON.stringify(want)}`;
  }
  return undefined;
}

function patternOf(text: string): RegExp {
  const parts = text.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`);
}

const MARK = '::doc-example::';

/**
 * One bash script that runs the examples in order in one shell, as a reader pasting them into
 * one terminal would (a variable set by one is seen by the next). It stops at the first command
 * that fails; each example's output is framed by markers that outputsOf() reads.
 */
export function examplesScript(examples: readonly DocExample[]): string {
  return [
    'set -euo pipefail',
    ...examples.flatMap((example) => [`printf '\\n${MARK}%s\\n' '${example.name}'`, example.script]),
    `printf '\\n${MARK}%s\\n' 'end'`,
  ].join('\n');
}

/** Each example's stdout, by name, from the script's stdout; `end` is there only if every example ran. */
export function outputsOf(stdout: string): Map<string, string> {
  const outputs = new Map<string, string>();
  const pieces = stdout.split(`\n${MARK}`);
  for (const piece of pieces.slice(1)) {
    const newline = piece.indexOf('\n');
    const name = newline < 0 ? piece : piece.slice(0, newline);
    outputs.set(name, newline < 0 ? '' : piece.slice(newline + 1));
  }
  return outputs;
}
