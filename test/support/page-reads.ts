import type { Page } from 'puppeteer-core';

/*
 * What a browser test reads of a page, as page expressions in strings: the tests' types know no
 * DOM. Each names its selector in the failure when the element is missing.
 */

export async function text(page: Page, selector: string): Promise<string> {
  const found: unknown = await page.evaluate(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? null`);
  if (typeof found !== 'string') throw new Error(`no ${selector} on ${page.url()}`);
  return found;
}

export async function texts(page: Page, selector: string): Promise<string[]> {
  return (await page.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.textContent)`)) as string[];
}

export async function attributes(page: Page, selector: string, name: string): Promise<(string | null)[]> {
  const expression = `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => e.getAttribute(${JSON.stringify(name)}))`;
  return (await page.evaluate(expression)) as (string | null)[];
}

export async function value(page: Page, selector: string): Promise<string> {
  const found: unknown = await page.evaluate(`document.querySelector(${JSON.stringify(selector)})?.value ?? null`);
  if (typeof found !== 'string') throw new Error(`no ${selector} on ${page.url()}`);
  return found;
}

export async function count(page: Page, selector: string): Promise<number> {
  return (await page.evaluate(`document.querySelectorAll(${JSON.stringify(selector)}).length`)) as number;
}
