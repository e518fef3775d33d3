import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BROWSER_UTC_TIME } from './display-format.js';

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
 * in `data-*` attributes. The errors table below is rewritten from the same figures as the
 * error bars, so the two never disagree. A chart with nothing to show says so instead of
 * drawing an empty axis; bar labels are measured and the label column sized to the longest
 * (a label too long for any column is shortened, its whole text in a tooltip). Times are
 * written as the pages write them (utcTime). Text goes in with textContent only.
 */
export const CHARTS_SCRIPT = `'use strict';
(function () {
  var root = document.querySelector('[data-charts]');
  if (!root || typeof uPlot === 'undefined') return;
  ${BROWSER_UTC_TIME}
  var SVG = 'http://www.w3.org/2000/svg';
  var COLORS = { sent: '#1f6feb', delivered: '#1a7f37', read: '#8250df', failed: '#cf222e' };
  var KINDS = ['sent', 'delivered', 'read', 'failed'];
  // Bars: the longest bar, a row's height, the gap around a label, the widest label column before labels are shortened.
  var BAR = 520, ROW = 26, GAP = 8, LABEL_MAX = 360;
  var plot = null;
  function place(name) { return root.querySelector('.' + name + ' .plot'); }
  function width(el) { return Math.max(320, Math.min(el.clientWidth || 900, 1100)); }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
  function nothing(el, what) {
    clear(el);
    var p = document.createElement('p');
    p.className = 'empty';
    p.textContent = 'Nothing yet: ' + what;
    el.appendChild(p);
  }
  /** A line needs two points, and lines that all stay at zero say nothing either. */
  function moved(series) {
    if (series.t.length < 2) return false;
    return KINDS.some(function (k) { return series[k].some(function (n) { return n !== 0; }); });
  }
  /** The time axis in UTC as the page writes times: hours (and seconds, ticks under a minute apart), a day's date under its first. */
  function ticks(u, splits, axis, space, increment) {
    var end = increment < 60 ? 19 : 16;
    return splits.map(function (v, i) {
      var at = utcTime(v * 1000), day = at.slice(0, 10);
      return i === 0 || day !== utcTime(splits[i - 1] * 1000).slice(0, 10) ? at.slice(11, end) + '\\n' + day : at.slice(11, end);
    });
  }
  function timeline(series) {
    var el = place('timeline');
    var data = [series.t].concat(KINDS.map(function (k) { return series[k]; }));
    if (plot) { plot.setData(data); return; }
    if (!moved(series)) { nothing(el, 'no row sent, delivered, read or failed over time.'); return; }
    clear(el);
    plot = new uPlot({
      width: width(el),
      height: 260,
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'); },
      scales: { y: { range: function (u, min, max) { return [0, Math.max(1, max)]; } } },
      series: [{ value: function (u, v) { return v === null ? '–' : utcTime(v * 1000); } }]
        .concat(KINDS.map(function (k) { return { label: k, stroke: COLORS[k], width: 2 }; })),
      axes: [{ values: ticks, space: 70, size: 56 }, { size: 60 }]
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
  /** A label no wider than LABEL_MAX: shortened with an ellipsis when it is (its bar's tooltip has it whole). */
  function fit(label) {
    var text = label.textContent;
    while (label.getComputedTextLength() > LABEL_MAX && text.length > 4) {
      text = text.slice(0, -1);
      label.textContent = text + '…';
    }
    return label.getComputedTextLength();
  }
  /** Horizontal bars: [{ label, rows, data }] with a bar's length by its rows against the longest; laid out once measured. */
  function bars(el, items, cssClass, empty) {
    if (items.every(function (i) { return i.rows === 0; })) { nothing(el, empty); return; }
    clear(el);
    var most = Math.max.apply(null, items.map(function (i) { return i.rows; }).concat([1]));
    var svg = node('svg', { height: items.length * ROW + 4, role: 'img', class: cssClass });
    el.appendChild(svg);
    var drawn = items.map(function (item, n) {
      var g = node('g', { class: 'bar', transform: 'translate(0,' + (n * ROW + 2) + ')' });
      Object.keys(item.data).forEach(function (k) { g.setAttribute('data-' + k, String(item.data[k])); });
      g.appendChild(node('title', {}, item.label + ': ' + item.rows.toLocaleString('en-US')));
      var label = node('text', { class: 'label', x: 0, y: 16, 'text-anchor': 'end' }, item.label);
      g.appendChild(label);
      svg.appendChild(g);
      return { g: g, label: label, item: item };
    });
    var column = Math.ceil(Math.max.apply(null, drawn.map(function (d) { return fit(d.label); }))) + 2 * GAP;
    var right = column;
    drawn.forEach(function (d) {
      var length = d.item.rows > 0 ? Math.max(2, Math.round((BAR * d.item.rows) / most)) : 0;
      d.label.setAttribute('x', String(column - GAP));
      d.g.appendChild(node('rect', { x: column, y: 3, width: length, height: ROW - 8, rx: 3, fill: d.item.color }));
      var figure = node('text', { x: column + length + 6, y: 16, class: 'n' }, d.item.rows.toLocaleString('en-US') + (d.item.note || ''));
      d.g.appendChild(figure);
      right = Math.max(right, column + length + 6 + figure.getComputedTextLength());
    });
    svg.setAttribute('width', String(Math.ceil(right) + GAP));
  }
  function errors(list, sample) {
    bars(place('error-bars'), list.map(function (e) {
      return { label: e.code + ' · ' + e.status, rows: e.rows, color: e.status === 'failed' ? COLORS.failed : '#9a6700',
        data: { code: e.code, status: e.status, rows: e.rows } };
    }), 'error-bars', 'no failed, unknown, rejected or skipped row.' + (sample ? ' (sample)' : ''));
  }
  function cell(tr, text, cssClass, tag) {
    var td = document.createElement('td');
    if (cssClass) td.className = cssClass;
    var inner = tag ? document.createElement(tag) : td;
    inner.textContent = text;
    if (tag) td.appendChild(inner);
    tr.appendChild(td);
  }
  /** The page's errors table (src/dashboard/errors-section.ts), from the figures the error bars were drawn from. */
  function errorsTable(list, scope) {
    var box = document.querySelector('.errors-by-code');
    if (!box) return;
    var table = box.querySelector('table.errors'), none = box.querySelector('.errors-none'), body = table.querySelector('tbody');
    clear(body);
    list.forEach(function (e) {
      var tr = document.createElement('tr');
      cell(tr, e.status);
      cell(tr, e.code, '', 'code');
      cell(tr, e.rows.toLocaleString('en-US'), 'n');
      cell(tr, e.example, 'detail');
      body.appendChild(tr);
    });
    table.hidden = list.length === 0;
    none.hidden = list.length > 0;
    var said = box.querySelector('[data-errors-scope]');
    if (said && typeof scope === 'string') said.textContent = scope;
  }
  function funnel(stages) {
    var first = stages.length > 0 ? stages[0].rows : 0;
    bars(place('funnel'), stages.map(function (s) {
      var share = first > 0 ? ' (' + Math.round((100 * s.rows) / first) + '%)' : '';
      return { label: s.stage, rows: s.rows, note: s.stage === 'queued' ? '' : share, color: COLORS[s.stage] || '#57606a',
        data: { stage: s.stage, rows: s.rows } };
    }), 'funnel', 'no row queued to send.');
  }
  function draw(charts) {
    timeline(charts.series);
    if (charts.errors) {
      errors(charts.errors, charts.errorsSample);
      errorsTable(charts.errors, charts.errorsScope);
    }
    funnel(charts.funnel);
    root.setAttribute('data-drawn', String(Number(root.getAttribute('data-drawn') || '0') + 1));
  }
  document.addEventListener('live-data', function (event) { if (event.detail && event.detail.charts) draw(event.detail.charts); });
  draw(JSON.parse(root.getAttribute('data-charts')));
})();
`;
