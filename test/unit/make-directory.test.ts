import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeDirectory } from '../../src/files/make-directory.js';

describe('makeDirectory (mkdir -p, one level at a time)', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'cw-mkdir-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('creates every missing level, and accepts one that exists', async () => {
    const deep = join(root, 'a', 'b', 'c');
    await makeDirectory(deep);
    expect((await stat(deep)).isDirectory()).toBe(true);
    await makeDirectory(deep);
    await makeDirectory(root);
  });

  it('fails, naming the cause, under a regular file and under /proc', async () => {
    await writeFile(join(root, 'file'), 'x');
    await expect(makeDirectory(join(root, 'file', 'sub'))).rejects.toMatchObject({ code: 'ENOTDIR' });
    await expect(makeDirectory('/proc/cw-no-such/reports')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
