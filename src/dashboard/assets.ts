import { BROWSER_UTC_TIME } from './display-format.js';

/**
 * The pages' stylesheet and script, served as files (the pages' Content-Security-Policy allows
 * no inline ones). Plain CSS and plain browser JavaScript: no build step.
 */

/**
 * Every 2 s: fetches the page's JSON (`data-live` on <body>) and copies each figure into the
 * element that shows it (`[data-field]` inside the campaign's `[data-campaign]`), with
 * textContent only (never markup). A campaign that appears or goes, or (on a campaign's own
 * page) a change of state, reloads the page, whose controls depend on it. Each update is
 * dispatched as the `live-data` event, for the charts (src/dashboard/chart-assets.ts). Forms
 * with `data-confirm` ask first. Times are written as the pages write them (utcTime: UTC, with its zone).
 */
export const LIVE_SCRIPT = `'use strict';
(function () {
  var INTERVAL_MS = 2000;
  ${BROWSER_UTC_TIME}
  document.addEventListener('submit', function (event) {
    var question = event.target.getAttribute('data-confirm');
    if (question && !window.confirm(question)) event.preventDefault();
  });
  var source = document.body.getAttribute('data-live');
  if (!source) return;
  var blocks = function () { return Array.prototype.slice.call(document.querySelectorAll('[data-campaign]')); };
  var shown = blocks().map(function (el) { return el.getAttribute('data-campaign'); });
  var status = document.getElementById('live-status');
  function apply(data) {
    var ids = data.campaigns.map(function (c) { return c.id; });
    var same = ids.length === shown.length && ids.every(function (id) { return shown.indexOf(id) >= 0; });
    if (!same) { window.location.reload(); return; }
    data.campaigns.forEach(function (c) {
      blocks().forEach(function (el) {
        if (el.getAttribute('data-campaign') !== c.id) return;
        if (el.hasAttribute('data-reload-on-state') && el.getAttribute('data-state') !== c.state) { window.location.reload(); return; }
        el.setAttribute('data-state', c.state);
        Array.prototype.forEach.call(el.querySelectorAll('[data-field]'), function (f) {
          var value = c.fields[f.getAttribute('data-field')];
          if (typeof value === 'string' && f.textContent !== value) f.textContent = value;
        });
        Array.prototype.forEach.call(el.querySelectorAll('progress'), function (p) { p.value = c.progress; });
      });
    });
    var updated = document.getElementById('updated');
    if (updated) updated.textContent = utcTime(data.at);
    document.dispatchEvent(new CustomEvent('live-data', { detail: data }));
  }
  function tick() {
    fetch(source, { headers: { accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' })
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json();
      })
      .then(function (data) {
        apply(data);
        if (status) status.textContent = 'live: updated ' + utcTime(Date.now());
      }, function () {
        if (status) status.textContent = 'live updates failing: the service did not answer';
      })
      .then(function () { setTimeout(tick, INTERVAL_MS); });
  }
  setTimeout(tick, INTERVAL_MS);
})();
`;

export const STYLESHEET = `:root {
  --fg: #1d2430; --muted: #5f6b7a; --line: #dfe3e8; --bg: #f6f7f9; --accent: #1f6feb; --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e;
}
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
header.top { display: flex; gap: 24px; align-items: baseline; padding: 12px 24px; background: #111827; color: #e5e7eb; }
header.top a { color: #e5e7eb; }
header.top .brand { font-weight: 600; }
header.top nav a { margin-right: 14px; }
header.top .live { margin-left: auto; color: #9ca3af; font-size: 12px; }
main { padding: 16px 24px 40px; }
h1 { font-size: 20px; margin: 8px 0 16px; }
h2 { font-size: 16px; margin: 28px 0 8px; }
table { border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
th, td { padding: 8px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; background: #fbfbfc; }
table.campaigns { width: 100%; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.id a { font-weight: 600; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.sub { color: var(--muted); font-size: 12px; }
.note:empty { display: none; }
td.errors, td.detail { max-width: 360px; overflow-wrap: anywhere; font-size: 12px; }
progress { width: 140px; height: 12px; vertical-align: middle; accent-color: var(--accent); }
p.big progress { width: 320px; }
.state span { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; background: #eaeef2; }
[data-state="running"] .state span, [data-state="ingesting"] .state span { background: #dafbe1; color: var(--ok); }
[data-state="paused"] .state span, [data-state="scheduled"] .state span { background: #fff8c5; color: var(--warn); }
[data-state="cancelled"] .state span { background: #ffebe9; color: var(--bad); }
[data-state="completed"] .state span { background: #ddf4ff; color: var(--accent); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0 0 12px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
fieldset {
  margin: 0 0 16px; padding: 10px 14px 12px; border: 1px solid var(--line); border-radius: 6px; background: #fff; max-width: 1100px;
}
legend { font-weight: 600; padding: 0 6px; }
fieldset label { display: inline-block; margin: 4px 16px 4px 0; }
.choice label { display: block; }
table.mapping { margin-top: 4px; }
.previews { display: flex; flex-wrap: wrap; gap: 14px; padding: 12px; background: #efeae2; border-radius: 6px; }
.bubble-wrap { width: 300px; }
.bubble-meta { font-size: 11px; color: var(--muted); margin-bottom: 2px; }
.bubble { background: #fff; border-radius: 0 8px 8px 8px; padding: 6px 9px 8px; box-shadow: 0 1px 0.5px rgba(11, 20, 26, 0.13); }
.bubble-header { font-weight: 700; margin-bottom: 4px; }
.bubble-media {
  background: #d1d7db; color: #54656f; font-size: 12px; padding: 20px 8px; margin: -2px -5px 6px; border-radius: 6px;
  overflow-wrap: anywhere;
}
.bubble-body { white-space: pre-wrap; overflow-wrap: anywhere; }
.bubble-footer { color: #667781; font-size: 12px; margin-top: 4px; }
.bubble-buttons { display: grid; gap: 2px; margin-top: 2px; }
.bubble-button {
  background: #fff; color: #027eb5; text-align: center; padding: 6px; border-radius: 8px; box-shadow: 0 1px 0.5px rgba(11, 20, 26, 0.13);
}
ul.problems { margin: 6px 0 0; padding-left: 20px; }
.problem-title { white-space: pre-wrap; margin: 0; }
form.retarget input[type="text"] { width: 80px; }
.controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin: 12px 0; }
.controls form { margin: 0; }
button, a.button {
  font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid #c9d1d9; background: #fff; color: var(--fg); cursor: pointer;
}
button:hover { background: #f3f4f6; }
button.danger { color: var(--bad); border-color: #f1aeb5; }
input[type="text"] { font: inherit; padding: 5px 8px; border: 1px solid #c9d1d9; border-radius: 6px; width: 240px; }
.notice { padding: 8px 12px; background: #dafbe1; border: 1px solid #aceebb; border-radius: 6px; }
.error { padding: 8px 12px; background: #ffebe9; border: 1px solid #ffc1bc; border-radius: 6px; }
.footnote { color: var(--muted); font-size: 12px; max-width: 900px; }
.crumbs { color: var(--muted); margin: 0; }
.empty { color: var(--muted); }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
.charts { display: grid; gap: 12px; max-width: 1140px; }
.charts figure { margin: 0; padding: 10px 12px; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
.charts figcaption { font-size: 12px; color: var(--muted); font-weight: 600; margin-bottom: 6px; }
.charts svg text { font-size: 12px; fill: var(--fg); font-variant-numeric: tabular-nums; }
`;
