import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * uPlot's browser build and stylesheet, read from the installed package (node_modules/uplot/dist)
 * the first time a page asks: the service serves them itself, so the page needs no CDN and
 * nothing is fetched while it runs.
 */
let uplot: { script: string; style: string } | undefined;

export function uplotFiles(): { script: string; style: string } {
  if (uplot === undefined) {
    // The package's main file is dist/uPlot.cjs.js; its browser build and CSS sit beside it.
    const dist = dirname(createRequire(import.meta.url).resolve('uplot'));
    uplot = { script: readFileSync(join(dist, 'uPlot.iife.min.js'), 'utf8'), style: readFileSync(join(dist, 'uPlot.min.css'), 'utf8') };
  }
  return uplot;
}

/**
 * A campaign page's charts (src/dashboard/campaign-charts.ts), drawn from the JSON in
 * `data-charts` and again from each live update's `charts` (the live script dispatches
 * `live-data`): the counters over time with uPlot (kept as `window.campaignTimeline`, so a test
 * can read its data), errors by code and the funnel as SVG bars, each bar carrying its figures
 * in `data-*` attributes. Text goes in with textContent only.
 */
export const CHARTS_SCRIPT = `'use strict';
(function () {
  var root = document.querySelector('[data-charts]');
  if (!root || typeof uPlot === 'undefined') return;
  var SVG = 'http://www.w3.org/2000/svg';
  var COLORS = { sent: '#1f6feb', delivered: '#1a7f37', read: '#8250df', failed: '#cf222e' };
  var KINDS = ['sent', 'delivered', 'read', 'failed'];
  var plot = null;
  function place(name) { return root.querySelector('.' + name + ' .plot'); }
  function width(el) { return Math.max(320, Math.min(el.clientWidth || 900, 1100)); }
  function timeline(series) {
    var data = [series.t].concat(KINDS.map(function (k) { return series[k]; }));
    if (plot) { plot.setData(data); return; }
    var el = place('timeline');
    plot = new uPlot({
      width: width(el),
      height: 260,
      // UTC, as the page writes its times.
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'); },
      scales: { y: { range: function (u, min, max) { return [0, Math.max(1, max)]; } } },
      series: [{}].concat(KINDS.map(function (k) { return { label: k, stroke: COLORS[k], width: 2 }; })),
      axes: [{}, { size: 60 }]
    }, data, el);
    window.campaignTimeline = plot;
    window.addEventListener('resize', function () { plot.setSize({ width: width(el), height: 260 }); });
  }
  function node(name, attrs, text) {
    var el = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (a) { el.setAttribute(a, String(attrs[a])); });
    if (text !== undefined) el.textContent = text;
    return el;
  }
  /** Horizontal bars: [{ label, rows, data }] with a bar's length by its rows against the longest. */
  function bars(el, items, cssClass, empty) {
    while (el.firstChild) el.removeChild(el.firstChild);
    if (items.length === 0) {
      var p = document.createElement('p');
      p.className = 'empty';
      p.textContent = empty;
      el.appendChild(p);
      return;
    }
    var LABEL = 170, BAR = 520, ROW = 26, most = Math.max.apply(null, items.map(function (i) { return i.rows; }).concat([1]));
    var svg = node('svg', { width: LABEL + BAR + 90, height: items.length * ROW + 4, role: 'img', class: cssClass });
    items.forEach(function (item, n) {
      var g = node('g', { class: 'bar', transform: 'translate(0,' + (n * ROW + 2) + ')' });
      Object.keys(item.data).forEach(function (k) { g.setAttribute('data-' + k, String(item.data[k])); });
      g.appendChild(node('text', { x: LABEL - 8, y: 16, 'text-anchor': 'end' }, item.label));
      var length = item.rows > 0 ? Math.max(2, Math.round((BAR * item.rows) / most)) : 0;
      g.appendChild(node('rect', { x: LABEL, y: 3, width: length, height: ROW - 8, rx: 3, fill: item.color }));
      g.appendChild(node('text', { x: LABEL + length + 6, y: 16, class: 'n' }, item.rows.toLocaleString('en-US') + (item.note || '')));
      svg.appendChild(g);
    });
    el.appendChild(svg);
  }
  function errors(list, sample) {
    bars(place('error-bars'), list.map(function (e) {
      return { label: e.code + ' · ' + e.status, rows: e.rows, color: e.status === 'failed' ? COLORS.failed : '#9a6700',
        data: { code: e.code, status: e.status, rows: e.rows } };
    }), 'error-bars', 'No failed, unknown, rejected or skipped row.' + (sample ? ' (sample)' : ''));
  }
  function funnel(stages) {
    var first = stages.length > 0 ? stages[0].rows : 0;
    bars(place('funnel'), stages.map(function (s) {
      var share = first > 0 ? ' (' + Math.round((100 * s.rows) / first) + '%)' : '';
      return { label: s.stage, rows: s.rows, note: s.stage === 'queued' ? '' : share, color: COLORS[s.stage] || '#57606a',
        data: { stage: s.stage, rows: s.rows } };
    }), 'funnel', 'No rows.');
  }
  function draw(charts) {
    timeline(charts.series);
    if (charts.errors) errors(charts.errors, charts.errorsSample);
    funnel(charts.funnel);
    root.setAttribute('data-drawn', String(Number(root.getAttribute('data-drawn') || '0') + 1));
  }
  document.addEventListener('live-data', function (event) { if (event.detail && event.detail.charts) draw(event.detail.charts); });
  draw(JSON.parse(root.getAttribute('data-charts')));
})();
`;
