import { describe, expect, it } from 'vitest';
import { examplesScript, outputsOf, printsDisagreement, shellExamples } from '../support/doc-examples.js';

/** How docs/api.md's runnable examples are found and judged (test/integration/docs-api-examples.test.ts runs them). */
describe('runnable doc examples', () => {
  const page = [
    '# Page',
    '```sh',
    '# example: first',
    'echo one',
    '# prints: one',
    '```',
    '```sh',
    'echo not an example',
    '```',
    '```sh',
    '# example: second',
    'echo "id c1"; echo',
    'echo done',
    '# prints: id …',
    '# prints: done',
    '```',
  ].join('\n');

  it('finds the marked sh blocks only, with their # prints: lines and where they start', () => {
    expect(shellExamples(page).map(({ name, prints, line }) => ({ name, prints, line }))).toStrictEqual([
      { name: 'first', prints: ['one'], line: 3 },
      { name: 'second', prints: ['id …', 'done'], line: 11 },
    ]);
  });

  it('matches output line by line, … for any text, blank lines left out', () => {
    expect(printsDisagreement(['id …', 'done'], 'id c20261126-1\n\ndone\n')).toBeUndefined();
    expect(printsDisagreement(['id …', 'done'], 'id c1\n')).toMatch(/printed 1 lines; line 2 should be "done"/);
    expect(printsDisagreement(['one'], 'one\ntwo\n')).toMatch(/printed more than it says/);
    expect(printsDisagreement(['201'], '422\n')).toMatch(/line 1 is "422"/);
    // Regex characters in the page are literal.
    expect(printsDisagreement(['a.c (x)'], 'abc (x)')).toBeDefined();
  });

  it('frames each example in one script, and reads each one output back', () => {
    const script = examplesScript(shellExamples(page));
    expect(script.startsWith('set -euo pipefail\n')).toBe(true);
    const outputs = outputsOf('\n::doc-example::first\none\n\n::doc-example::second\nid c1\ndone\n\n::doc-example::end\n');
    expect([...outputs.keys()]).toStrictEqual(['first', 'second', 'end']);
    expect(outputs.get('second')).toBe('id c1\ndone\n');
  });
});
