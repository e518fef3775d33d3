import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLocalMediaFile } from '../../../src/media/media-fetch.js';
import { mediaBytes } from './media-bytes.js';

/** `--header-file-column`: a regular file the operator names, never a device, a pipe or a directory. */
const dir = mkdtempSync(join(tmpdir(), 'media-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readLocalMediaFile', () => {
  it('reads a regular file whole, its type declared by its extension', async () => {
    const path = join(dir, 'banner.PNG');
    writeFileSync(path, mediaBytes.png(300));
    expect(await readLocalMediaFile(path, 1000)).toEqual({ ok: true, bytes: mediaBytes.png(300), declaredType: 'image/png', from: path });
  });

  it('follows a link to a regular file', async () => {
    const target = join(dir, 'terms.pdf');
    writeFileSync(target, mediaBytes.pdf());
    const link = join(dir, 'latest-terms');
    symlinkSync(target, link);
    expect(await readLocalMediaFile(link, 1000)).toMatchObject({ ok: true, declaredType: undefined });
  });

  it('refuses a file above the limit without reading it (MEDIA_TOO_LARGE)', async () => {
    const path = join(dir, 'big.jpg');
    writeFileSync(path, mediaBytes.jpeg(2001));
    const result = await readLocalMediaFile(path, 2000);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_TOO_LARGE' });
    expect(!result.ok && result.detail).toContain('2001 bytes');
  });

  it('a missing file is MEDIA_UNREACHABLE naming the path and the error code', async () => {
    const result = await readLocalMediaFile(join(dir, 'missing.png'), 1000);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    expect(!result.ok && result.detail).toContain('ENOENT');
  });

  it.each([
    ['a directory', () => dir],
    ['a link to /dev/zero (endless)', () => linkTo('/dev/zero', 'zero.png')],
    ['a link to /dev/urandom', () => linkTo('/dev/urandom', 'random.mp4')],
    ['a named pipe with no writer (would block a plain open)', () => fifo('pipe.png')],
  ])('refuses %s as not a regular file, without reading it', async (_what, make) => {
    const result = await readLocalMediaFile(make(), 1000);
    expect(result).toMatchObject({ ok: false, code: 'MEDIA_UNREACHABLE' });
    expect(!result.ok && result.detail).toContain('not a regular file');
  });
});

function linkTo(target: string, name: string): string {
  const link = join(dir, name);
  symlinkSync(target, link);
  return link;
}

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}
