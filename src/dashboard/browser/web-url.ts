/**
 * The link as given when it is an http(s) URL, else null: a cell of the operator's file becomes
 * an image's or a video's `src` only then, never `javascript:`, `data:` or a relative path.
 */
export function webUrl(value: string): string | null {
  try {
    const url = new URL(value.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}
