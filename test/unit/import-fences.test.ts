import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The fences of eslint.config.js, tried on real files of each folder with one import added:
 * the rule must refuse it (a fence nobody checks can be lifted by accident).
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function problemsOf(filePath: string, importLine: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${importLine}\nexport const probe = fence;\n`, { filePath });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
    .map((m) => m.message);
}

describe('import fences', () => {
  it.each([
    ['src/api/routes/campaign-status-route.ts', "import { fence } from '../../cli/format.js';", 'must not import src/cli'],
    ['src/app/app-context.ts', "import { fence } from '../cli/format.js';", 'must not import src/cli'],
    ['src/campaigns/campaign.ts', "import { fence } from '../cli/format.js';", 'must not import src/cli'],
    ['src/dashboard/dashboard.ts', "import { fence } from '../cli/format.js';", 'must not import src/cli'],
    ['src/dashboard/dashboard.ts', "import { fence } from '../api/problem.js';", 'must not import the HTTP API'],
    ['src/api/api-server.ts', "import { fence } from '../dashboard/dashboard.js';", 'must not import the pages'],
    ['src/app/app-context.ts', "const fence = await import('../cli/format.js');", 'must not import src/cli'],
  ])('%s refuses %s', async (file, line, wording) => {
    const messages = await problemsOf(file, line);
    expect(messages.join('\n')).toContain(wording);
  });

  it('lets a package whose path has such a segment through', async () => {
    expect(await problemsOf('src/dashboard/dashboard.ts', "import { fence } from '@bull-board/api/bullMQAdapter';")).toEqual([]);
  });
});
