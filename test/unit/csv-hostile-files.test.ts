import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, symlinkSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openCsv } from '../../src/csv/csv-records.js';
import { AppError } from '../../src/errors/app-error.js';
import { csvFiles } from '../support/csv-reading.js';

const files = csvFiles('csv-hostile-test');
const { dir } = files;
const csvFile = files.write;

afterAll(files.cleanup);

/** openCsv's rejection, or a failure when it resolves or takes longer than `ms` (a hang). */
async function refusal(path: string, ms = 2_000): Promise<AppError> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`openCsv(${path}) did not answer within ${ms} ms`)), ms);
  });
  try {
    const source = await Promise.race([openCsv(path), timeout]);
    source.close();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  } finally {
    clearTimeout(timer);
  }
  throw new Error(`expected openCsv(${path}) to reject, it resolved`);
}

/** The descriptors of this process open on `path` (other test files share the process: only this path's count). */
const openOn = (path: string): number =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed between the listing and the read
    }
  }).length;

describe('paths that are not regular files are refused before they are read', () => {
  it('a named pipe (FIFO) → CSV_UNREADABLE at once, without waiting for a writer', async () => {
    const fifo = join(dir, 'pipe.csv');
    execFileSync('mkfifo', [fifo]);
    // A read of the pipe would wait for a writer forever: the refusal arriving at all is the point.
    const error = await refusal(fifo);

    expect(error.code).toBe('CSV_UNREADABLE');
    expect(error.message).toBe(
      `${fifo} is a named pipe (FIFO), not a regular file; save the data to a .csv file and give its path. Nothing was created.`,
    );
    // Nothing left open on the pipe.
    expect(openOn(fifo)).toBe(0);
  });

  it('a symlink to a FIFO is refused the same way (stat follows the link)', async () => {
    const fifo = join(dir, 'pipe-2');
    execFileSync('mkfifo', [fifo]);
    const link = join(dir, 'link-to-pipe.csv');
    symlinkSync(fifo, link);

    expect(await refusal(link)).toMatchObject({
      code: 'CSV_UNREADABLE',
      message: expect.stringContaining('is a named pipe (FIFO)') as string,
    });
  });

  it.runIf(existsSync('/dev/zero'))('/dev/zero → CSV_UNREADABLE naming a character device, not an endless read', async () => {
    const error = await refusal('/dev/zero');

    expect(error.code).toBe('CSV_UNREADABLE');
    expect(error.message).toMatch(/^\/dev\/zero is a character device .*not a regular file; save the data to a \.csv file/);
  });

  it('a directory → CSV_UNREADABLE saying so', async () => {
    const error = await refusal(dir);

    expect(error.code).toBe('CSV_UNREADABLE');
    expect(error.message).toContain(`${dir} is a directory, not a regular file`);
  });

  it('a Unix socket → CSV_UNREADABLE saying so', async () => {
    const path = join(dir, 'socket.csv');
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      expect(await refusal(path)).toMatchObject({
        code: 'CSV_UNREADABLE',
        message: expect.stringContaining(`${path} is a socket, not a regular file`) as string,
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('files that are not CSV are named for what they are', () => {
  const bytes = (...values: number[]): Buffer => Buffer.from(values);
  const pad = (head: Buffer): Buffer => Buffer.concat([head, Buffer.alloc(200, 0x41)]);

  it.each([
    ['a PNG image', pad(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d))],
    ['a JPEG image', pad(bytes(0xff, 0xd8, 0xff, 0xe0, 0, 0x10))],
    ['a GIF image', pad(Buffer.from('GIF89a'))],
    ['a ZIP archive, e.g. an Excel workbook (.xlsx)', pad(bytes(0x50, 0x4b, 0x03, 0x04, 0x14, 0))],
    ['an old Excel workbook (.xls) or another Office document', pad(bytes(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1))],
    ['a PDF document', pad(Buffer.from('%PDF-1.7\n'))],
    ['a gzip-compressed file', pad(bytes(0x1f, 0x8b, 0x08, 0))],
    ['an HTML page', Buffer.from('<!DOCTYPE html>\n<html><body>phone,name</body></html>\n')],
    ['an HTML page', Buffer.from('\ufeff  \r\n<HTML lang="en">\n<body>x</body></HTML>\n')],
  ])('%s → CSV_NOT_CSV', async (what, content) => {
    const path = csvFile(content);
    const error = await refusal(path);

    expect(error.code).toBe('CSV_NOT_CSV');
    expect(error.message).toBe(
      `${path} is ${what}, not CSV text; export the data as CSV UTF-8 (in Excel: Save As → ` +
        `"CSV UTF-8 (Comma delimited)"). Nothing was created.`,
    );
  });

  it('a CSV whose first column merely starts with similar letters is read (no false alarm)', async () => {
    const source = await openCsv(csvFile('PK,html,GIF\n1,<html>,x\n'));

    expect(source.header).toStrictEqual(['PK', 'html', 'GIF']);
    source.close();
  });
});
