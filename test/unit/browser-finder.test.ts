import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Browser, computeExecutablePath, detectBrowserPlatform } from '@puppeteer/browsers';
import { PUPPETEER_REVISIONS } from 'puppeteer-core/internal/revisions.js';
import { describe, expect, it } from 'vitest';
import { fetchChrome, findBrowser, type BrowserLookups } from '../support/browser-finder.js';

/** A machine with these executables and these names on its PATH; records whether a fetch was asked for. */
function machine(options: { chromiumPath?: string; executables?: string[]; onPath?: Record<string, string>; fetch?: string | Error }) {
  const asked = { fetched: 0 };
  const lookups: BrowserLookups = {
    chromiumPath: options.chromiumPath,
    isExecutable: (path) => (options.executables ?? []).includes(path),
    onPath: (name) => options.onPath?.[name],
    cacheDir: '/home/me/.cache/puppeteer',
    fetchIntoCache: () => {
      asked.fetched++;
      const fetched = options.fetch ?? new Error('getaddrinfo ENOTFOUND storage.googleapis.com');
      return fetched instanceof Error ? Promise.reject(fetched) : Promise.resolve(fetched);
    },
  };
  return { lookups, asked };
}

describe('findBrowser', () => {
  it('CHROMIUM_PATH first, before anything on the machine', async () => {
    const { lookups, asked } = machine({
      chromiumPath: '/opt/mine/chrome',
      executables: ['/opt/mine/chrome', '/usr/bin/chromium'],
      onPath: { chromium: '/usr/bin/chromium' },
    });
    expect(await findBrowser(lookups)).toStrictEqual({ path: '/opt/mine/chrome', source: 'CHROMIUM_PATH' });
    expect(asked.fetched).toBe(0);
  });

  it('a CHROMIUM_PATH that is no executable fails, naming it, instead of quietly taking another browser', async () => {
    const { lookups } = machine({ chromiumPath: '/opt/typo/chrome', onPath: { chromium: '/usr/bin/chromium' } });
    await expect(findBrowser(lookups)).rejects.toThrow('CHROMIUM_PATH=/opt/typo/chrome is not an executable file');
  });

  it('then the PATH, in the order chromium, chromium-browser, google-chrome, google-chrome-stable', async () => {
    const onPath = {
      'google-chrome-stable': '/x/google-chrome-stable',
      'chromium-browser': '/x/chromium-browser',
      'google-chrome': '/x/google-chrome',
    };
    expect((await findBrowser(machine({ onPath }).lookups)).path).toBe('/x/chromium-browser');
    expect((await findBrowser(machine({ onPath: { ...onPath, chromium: '/x/chromium' } }).lookups)).path).toBe('/x/chromium');
    expect((await findBrowser(machine({ onPath: { 'google-chrome-stable': '/x/gcs' } }).lookups)).source).toBe(
      'google-chrome-stable on the PATH',
    );
  });

  it('then the usual install places, when their directory is not on the PATH', async () => {
    const { lookups, asked } = machine({ executables: ['/opt/google/chrome/chrome', '/snap/bin/chromium'] });
    expect((await findBrowser(lookups)).path).toBe('/snap/bin/chromium');
    expect(asked.fetched).toBe(0);
  });

  it('then one fetched into the cache, only when nothing is installed', async () => {
    const { lookups, asked } = machine({ fetch: '/home/me/.cache/puppeteer/chrome/linux-1/chrome-linux64/chrome' });
    expect(await findBrowser(lookups)).toStrictEqual({
      path: '/home/me/.cache/puppeteer/chrome/linux-1/chrome-linux64/chrome',
      source: "@puppeteer/browsers' cache (/home/me/.cache/puppeteer)",
    });
    expect(asked.fetched).toBe(1);
  });

  it('and only then a failure that says why the fetch failed and how to provide a browser', async () => {
    const { lookups } = machine({});
    const error = await findBrowser(lookups).then(
      () => new Error('found a browser'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toContain('could not fetch one into /home/me/.cache/puppeteer (getaddrinfo ENOTFOUND storage.googleapis.com)');
    expect(error.message).toContain('apt-get install chromium');
    expect(error.message).toContain('set CHROMIUM_PATH');
  });
});

describe('fetchChrome', () => {
  it('takes the build puppeteer-core drives from the cache when it was fetched before, without the network', async () => {
    const platform = detectBrowserPlatform();
    if (platform === undefined) throw new Error(`@puppeteer/browsers knows no platform for ${process.platform}/${process.arch}`);
    const cacheDir = await mkdtemp(join(tmpdir(), 'browser-cache-'));
    try {
      const path = computeExecutablePath({ cacheDir, browser: Browser.CHROME, buildId: PUPPETEER_REVISIONS.chrome, platform });
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, '#!/bin/sh\n');
      await chmod(path, 0o755);
      expect(await fetchChrome(cacheDir)).toBe(path);
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });
});
