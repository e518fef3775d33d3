import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchors, githubSlug, headings, links } from '../support/markdown.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** What is wrong with one link of `page`, or undefined when it resolves. */
function brokenLink(page: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: …: not ours to check
  const hash = target.indexOf('#');
  const path = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const file = path === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), decodeURIComponent(path));
  if (!existsSync(file)) return `${relative(ROOT, file)} does not exist`;
  if (anchor === undefined) return undefined;
  if (!file.endsWith('.md')) return `#${anchor} points into ${relative(ROOT, file)}, which has no headings`;
  const offered = anchors(readFileSync(file, 'utf8'));
  return offered.has(anchor) ? undefined : `${relative(ROOT, file)} has no heading #${anchor}`;
}

describe('GitHub heading anchors', () => {
  it('match github-slugger on the kinds of heading the docs use', () => {
    expect(githubSlug("Meta's top tier: 1,000 msg/s from one worker")).toBe('metas-top-tier-1000-msgs-from-one-worker');
    expect(githubSlug('A live view of one campaign: campaign status --watch')).toBe('a-live-view-of-one-campaign-campaign-status---watch');
    expect(githubSlug('0.2.0 - 2026-11-25')).toBe('020---2026-11-25');
    expect(githubSlug('SEND_RATE and Ünïcode')).toBe('send_rate-and-ünïcode');
  });

  it('render code spans and links to their text, number repeats, and ignore fenced code', () => {
    const page = ['# `campaign send`', '## [Rate](x.md)', '```', '# not a heading', '```', '## Rate'].join('\n');
    expect(headings(page).map((h) => h.slug)).toEqual(['campaign-send', 'rate', 'rate-1']);
  });
});

describe('links in README.md, CHANGELOG.md and docs/*.md', () => {
  it('finds the pages and their links', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/cli.md', 'docs/errors.md', 'docs/performance.md']));
    expect(links(readFileSync(join(ROOT, 'README.md'), 'utf8')).length).toBeGreaterThan(10);
  });

  it.each(PAGES)('%s: every relative link names a file that exists, and every #anchor a heading in it', (page) => {
    const broken = links(readFileSync(join(ROOT, page), 'utf8'))
      .map((link) => ({ link, problem: brokenLink(page, link.target) }))
      .filter(({ problem }) => problem !== undefined)
      .map(({ link, problem }) => `${page}:${link.line}: (${link.target}): ${problem}`);
    expect(broken).toEqual([]);
  });

  it('a link to a missing file or heading is reported', () => {
    expect(brokenLink('README.md', 'docs/no-such-page.md')).toBe('docs/no-such-page.md does not exist');
    expect(brokenLink('README.md', 'docs/cli.md#no-such-heading')).toBe('docs/cli.md has no heading #no-such-heading');
    expect(brokenLink('docs/cli.md', '#campaign-send')).toBeUndefined();
    expect(brokenLink('docs/cli.md', '../CHANGELOG.md')).toBeUndefined();
  });
});
