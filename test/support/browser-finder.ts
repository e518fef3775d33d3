import { homedir } from 'node:os';
import { join } from 'node:path';
import { findOnPath, isExecutableFile } from '../../src/files/find-on-path.js';

/** What the finder may look at; tests give their own, the machine's are `machineLookups()`. */
export interface BrowserLookups {
  /** CHROMIUM_PATH. */
  chromiumPath: string | undefined;
  isExecutable(path: string): boolean;
  onPath(name: string): string | undefined;
  /** Where a fetched browser is kept. */
  cacheDir: string;
  /** The browser fetched into `cacheDir` before, else fetched now; rejects with the reason it cannot be. */
  fetchIntoCache(cacheDir: string): Promise<string>;
}

export interface FoundBrowser {
  path: string;
  /** Where it was found, for a failure message. */
  source: string;
}

/** Names a Chromium or Chrome is installed under, looked up on the PATH. */
export const BROWSER_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'] as const;

/** Where packages and installers put one when its directory is not on the PATH. */
export const BROWSER_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/opt/google/chrome/chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
] as const;

/**
 * The browser the browser tests drive: CHROMIUM_PATH (which must then be one), else a
 * Chromium or Chrome on the PATH or at a usual place, else one fetched once by
 * @puppeteer/browsers into a cache (only where the machine has internet access), else an
 * error that says how to provide one.
 */
export async function findBrowser(lookups: BrowserLookups = machineLookups()): Promise<FoundBrowser> {
  if (lookups.chromiumPath !== undefined && lookups.chromiumPath !== '') {
    if (lookups.isExecutable(lookups.chromiumPath)) return { path: lookups.chromiumPath, source: 'CHROMIUM_PATH' };
    throw new Error(
      `CHROMIUM_PATH=${lookups.chromiumPath} is not an executable file: point it at a Chromium ` +
        `or Chrome, or unset it to let the tests look for one`,
    );
  }
  for (const name of BROWSER_NAMES) {
    const path = lookups.onPath(name);
    if (path !== undefined) return { path, source: `${name} on the PATH` };
  }
  const installed = BROWSER_PATHS.find((path) => lookups.isExecutable(path));
  if (installed !== undefined) return { path: installed, source: installed };
  try {
    return { path: await lookups.fetchIntoCache(lookups.cacheDir), source: `@puppeteer/browsers' cache (${lookups.cacheDir})` };
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').slice(0, 200);
    throw new Error(
      `No Chromium or Chrome for the browser test: CHROMIUM_PATH is unset, none of ` +
        `${BROWSER_NAMES.join(', ')} is on the PATH or at a usual place, ` +
        `and @puppeteer/browsers could not fetch one into ${lookups.cacheDir} (${reason}). ` +
        'Install one (apt-get install chromium, or Google Chrome), or set CHROMIUM_PATH to its executable.',
    );
  }
}

export function machineLookups(): BrowserLookups {
  return {
    chromiumPath: process.env.CHROMIUM_PATH,
    isExecutable: isExecutableFile,
    onPath: (name) => findOnPath(name, process.env.PATH ?? ''),
    // puppeteer's own cache: a browser any puppeteer fetched before is found there.
    cacheDir: process.env.PUPPETEER_CACHE_DIR ?? join(homedir(), '.cache', 'puppeteer'),
    fetchIntoCache: fetchChrome,
  };
}

/** Chrome for Testing of the build this puppeteer-core drives, from the cache, else downloaded into it. */
export async function fetchChrome(cacheDir: string): Promise<string> {
  const { Browser, computeExecutablePath, detectBrowserPlatform, install } = await import('@puppeteer/browsers');
  const { PUPPETEER_REVISIONS } = await import('puppeteer-core/internal/revisions.js');
  const platform = detectBrowserPlatform();
  if (platform === undefined) throw new Error(`Chrome for Testing has no build for ${process.platform}/${process.arch}`);
  const wanted = { cacheDir, browser: Browser.CHROME, buildId: PUPPETEER_REVISIONS.chrome, platform };
  const cached = computeExecutablePath(wanted);
  if (isExecutableFile(cached)) return cached;
  console.log(`Fetching Chrome ${wanted.buildId} for the browser test into ${cacheDir} (once)…`);
  return (await install(wanted)).executablePath;
}
