import puppeteer, { type Browser } from 'puppeteer-core';
import { findBrowser } from './browser-finder.js';
import { within } from './waiting.js';

/**
 * The headless Chromium a browser test drives: the one findBrowser finds, with the flags a
 * container needs (root has no user namespace for Chromium's sandbox; /dev/shm is small).
 */
export async function launchTestBrowser(
  viewport: { width: number; height: number } | null = { width: 1280, height: 900 },
): Promise<Browser> {
  const chromium = await findBrowser();
  return puppeteer.launch({
    executablePath: chromium.path,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--no-default-browser-check'],
    defaultViewport: viewport,
    timeout: 60_000,
  });
}

/** Closes it; one that does not close is killed by its PID (never by name: other tests may run a Chromium too). */
export async function closeTestBrowser(browser: Browser | undefined): Promise<void> {
  if (browser === undefined) return;
  const pid = browser.process()?.pid;
  await within(10_000, browser.close(), () => 'Chromium did not close').catch(() => {
    if (pid !== undefined) process.kill(pid, 'SIGKILL');
  });
}
