/**
 * Just enough Markdown for the docs tests: headings with GitHub's anchors, and the links a
 * page makes. Code (fenced blocks and `spans`) is neither a heading nor a link.
 */

export interface Heading {
  level: number;
  /** The heading as rendered: no backticks, links reduced to their text. */
  text: string;
  /** GitHub's anchor for it, with -1, -2… for repeats. */
  slug: string;
  /** 0-based line of the heading. */
  line: number;
}

export interface Link {
  target: string;
  line: number;
}

/** Each line with fenced code blanked out, so nothing inside a fence is read as Markdown. */
export function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      fence = marker;
      return '';
    }
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return '';
    }
    return line;
  });
}

/** The text GitHub renders for inline Markdown: code spans keep their content, links their text, tags go. */
export function renderedText(inline: string): string {
  return inline
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/\\(.)/g, '$1')
    .trim();
}

/** GitHub's heading anchor (github-slugger): lower case, punctuation and symbols dropped, each space a hyphen. */
export function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

export function headings(markdown: string): Heading[] {
  const seen = new Map<string, number>();
  const found: Heading[] = [];
  proseLines(markdown).forEach((line, index) => {
    const match = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (match === null) return;
    const text = renderedText(match[2] ?? '');
    const base = githubSlug(text);
    const repeats = seen.get(base) ?? 0;
    seen.set(base, repeats + 1);
    found.push({ level: (match[1] ?? '').length, text, slug: repeats === 0 ? base : `${base}-${repeats}`, line: index });
  });
  return found;
}

/** Anchors a page offers: its headings' slugs and any HTML id/name. */
export function anchors(markdown: string): Set<string> {
  const ids = [...markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)].map((m) => m[1] ?? '');
  return new Set([...headings(markdown).map((h) => h.slug), ...ids]);
}

/** Every inline link and image target outside code, as written (`path#anchor`, `#anchor`, `https://…`). */
export function links(markdown: string): Link[] {
  const found: Link[] = [];
  proseLines(markdown).forEach((line, index) => {
    const prose = line.replace(/`+[^`]*`+/g, '');
    for (const match of prose.matchAll(/!?\[(?:[^\]]|\][^(])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ target: match[1] ?? '', line: index + 1 });
    }
  });
  return found;
}
