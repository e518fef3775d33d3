import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScratchDir } from '../../src/files/scratch-dir.js';

describe('ScratchDir: a temporary directory made at its first use', () => {
  let parent: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'scratch-dir-test-'));
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('makes nothing until asked, so a run that needs none leaves none', async () => {
    const scratch = new ScratchDir('campaign-send-', parent);
    expect(await readdir(parent)).toEqual([]);
    await scratch.remove();
    expect(await readdir(parent)).toEqual([]);
  });

  it('makes one directory however often asked, and removes it with what it holds', async () => {
    const scratch = new ScratchDir('campaign-send-', parent);
    const [first, second] = await Promise.all([scratch.path(), scratch.path()]);
    expect(first).toBe(second);
    expect(await readdir(parent)).toEqual([expect.stringMatching(/^campaign-send-/)]);
    await writeFile(join(first, 'segment.csv'), 'phone\n+15550100\n');
    await scratch.remove();
    expect(await readdir(parent)).toEqual([]);
  });
});
