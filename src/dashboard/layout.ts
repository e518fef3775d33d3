import { html, type SafeHtml } from './html.js';

/** Where the page's own script and stylesheet are served (src/dashboard/page-assets.ts; their sources are in src/dashboard/browser/). */
export const ASSET_PATHS = { script: '/dashboard/live.js', style: '/dashboard/style.css' } as const;

/**
 * The headers of every dashboard page: the page's script and stylesheet are separate files
 * from this host (bundled at build time), so no inline script or style is allowed at all (a value that slipped
 * through escaping still could not run); no framing, no form posting elsewhere, no referrer.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export interface PageOptions {
  title: string;
  /** The JSON the page's script polls for live figures; absent: a still page. */
  live?: string;
  body: SafeHtml;
}

export function page(options: PageOptions): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · campaign-worker</title>
<link rel="stylesheet" href="${ASSET_PATHS.style}">
<script src="${ASSET_PATHS.script}" defer></script>
</head>
<body data-live="${options.live ?? ''}">
<header class="top">
<a class="brand" href="/">campaign-worker</a>
<nav><a href="/">Campaigns</a> <a href="/audiences">Audiences</a> <a href="/hooks">Hooks</a> <a href="/queues">Queues</a>
  <a href="/metrics">Metrics</a></nav>
<span class="live" id="live-status">${options.live === undefined ? '' : 'live: updated every 2 s'}</span>
</header>
<main>
${options.body}
</main>
</body>
</html>
`;
}
