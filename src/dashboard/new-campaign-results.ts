import { basename } from 'node:path';
import { defaultRateCardFile } from '../pricing/rate-card.js';
import { BROWSER_UTC_TIME } from './display-format.js';

/**
 * What the New campaign page shows of the API's answers, as plain browser JavaScript: the
 * chat bubbles of the preview, the dry run's plan (counts, refused rows by reason with
 * examples, windows, the messaging limit, the cost) and a problem document's problems, every
 * one with its row, column or field. Times are written as the pages write them (utcTime: UTC,
 * with its zone); the cost says which rate card priced it, as `campaign send` does. Text goes in
 * with textContent only, never as markup.
 */
export const NEW_CAMPAIGN_RESULTS = String.raw`'use strict';
var NewCampaignResults = (function () {
  /** The file name of the rate card the package ships (an example, not Meta's rates). */
  var EXAMPLE_CARD = ${JSON.stringify(basename(defaultRateCardFile()))};
  ${BROWSER_UTC_TIME}
  /** An element with attributes and children (strings become text nodes). */
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (a) {
      if (attrs[a] !== undefined && attrs[a] !== null) node.setAttribute(a, String(attrs[a]));
    });
    (children || []).forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    });
    return node;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function when(iso) { return iso ? utcTime(iso) : '?'; }

  /** One message as a WhatsApp chat bubble: header, body, footer, then its buttons under it. */
  function bubble(message, meta) {
    var head = null;
    if (message.header && message.header.kind === 'text') head = el('div', { class: 'bubble-header' }, [message.header.text]);
    else if (message.header && message.header.kind === 'media')
      head = el('div', { class: 'bubble-media' }, [message.header.format.toLowerCase() + ': ' + (message.header.url || '(no link)')]);
    else if (message.header && message.header.kind === 'location') head = el('div', { class: 'bubble-media' }, ['location']);
    var buttons = message.buttons.length === 0 ? null :
      el('div', { class: 'bubble-buttons' }, message.buttons.map(function (b) { return el('span', { class: 'bubble-button' }, [b]); }));
    return el('div', { class: 'bubble-wrap', 'data-row': meta.number }, [
      el('div', { class: 'bubble-meta' }, ['row ' + meta.number + ' · ' + meta.phone]),
      el('div', { class: 'bubble' }, [
        head,
        el('div', { class: 'bubble-body' }, [message.body]),
        message.footer ? el('div', { class: 'bubble-footer' }, [message.footer]) : null
      ]),
      buttons
    ]);
  }

  function where(p) {
    var parts = [];
    if (p.row !== undefined) parts.push('row ' + p.row);
    if (p.column !== undefined) parts.push('column ' + p.column);
    if (p.field !== undefined) parts.push('field ' + p.field);
    return parts.length === 0 ? '' : ' (' + parts.join(', ') + ')';
  }

  /** A refusal of the API: its detail and every problem it lists, each with where it is. */
  function problems(container, status, body) {
    clear(container);
    var doc = body && typeof body === 'object' ? body : { detail: String(body || '') };
    var list = Array.isArray(doc.problems) ? doc.problems : [];
    var items = list.map(function (p) {
      return el('li', { 'data-code': p.code || '' }, [el('code', {}, [p.code || '']), ' ', (p.detail || '') + where(p)]);
    });
    var detail = doc.detail || doc.title || 'the service refused the request';
    // The list says each problem: the detail's first line is enough above it.
    if (items.length > 0) detail = detail.split('\n')[0];
    var title = (doc.code ? doc.code + ': ' : '') + detail + ' (HTTP ' + status + ')';
    container.appendChild(el('div', { class: 'error', role: 'alert' }, [
      el('p', { class: 'problem-title' }, [title]),
      items.length === 0 ? null : el('ul', { class: 'problems' }, items)
    ]));
  }

  function figure(name, value) { return el('span', { 'data-figure': name }, [String(value)]); }

  function reasonsTable(summary, groups) {
    var reasons = Object.keys(summary.byReason || {});
    if (reasons.length === 0) return el('p', { class: 'reasons none' }, ['No row refused.']);
    var rows = reasons.map(function (reason) {
      var g = groups.filter(function (x) { return x.reason === reason; })[0];
      var examples = g ? g.examples.map(function (r) {
        var at = 'row ' + r.row + (r.column ? ', column ' + r.column : '') + (r.phone ? ' (' + r.phone + ')' : '');
        return el('div', { class: 'example' }, [at + ': ' + r.detail]);
      }) : [];
      return el('tr', { 'data-reason': reason }, [
        el('td', {}, [el('code', {}, [reason])]),
        el('td', { class: 'n' }, [String(summary.byReason[reason])]),
        el('td', { class: 'detail' }, examples)
      ]);
    });
    return el('table', { class: 'reasons' }, [
      el('thead', {}, [el('tr', {}, [el('th', {}, ['Reason']), el('th', {}, ['Rows']), el('th', {}, ['Examples'])])]),
      el('tbody', {}, rows)
    ]);
  }

  function limitLine(limit) {
    if (!limit) return 'no messaging limit applies (a text goes only to open conversations)';
    if (limit.limit === null) return 'messaging limit of portfolio ' + limit.portfolio + ': not known yet';
    if (limit.limit === 'unlimited') return 'messaging limit: unlimited';
    var per = limit.limit + ' unique users per 24 h, ' + limit.reached + ' reached';
    return limit.over > 0 ? 'messaging limit: ' + limit.over + ' of ' + limit.recipients + ' recipients past it (' + per + '): they wait'
      : 'messaging limit: within it (' + per + ')';
  }

  /** Where the cost's rates come from: the card's file name (never the server's path), or the example card the package ships. */
  function ratesFrom(card) {
    var name = typeof card === 'string' ? card.split(/[\\/]/).pop() : '';
    if (name === EXAMPLE_CARD)
      return "rates from the example rate card shipped with campaign-worker, not Meta's rates: set RATE_CARD_FILE (docs/costs.md)";
    if (name) return 'rates from ' + name + ' (RATE_CARD_FILE)';
    return "rates from the rate card in RATE_CARD_FILE, else the example card shipped with campaign-worker (not Meta's rates)";
  }

  function costLine(plan) {
    if (plan.cost && plan.cost.total !== undefined)
      return 'estimated cost: ' + plan.cost.total + ' ' + (plan.cost.currency || '') + ' at most; ' + ratesFrom(plan.rateCard);
    return 'estimated cost: not known' + (plan.costReason ? ' (' + plan.costReason + ')' : '');
  }

  /** The dry run's answer: what would be queued, refused and skipped, and when it would be sent. */
  function plan(container, summary, groups) {
    clear(container);
    var p = summary.plan || {};
    var lines = [
      'starts ' + when(p.startsAt),
      p.window ? 'sends ' + p.window + ' of each recipient' : null,
      p.finishesAt ? 'finishes about ' + when(p.finishesAt) : null,
      p.wouldExpire > 0 ? p.wouldExpire + ' rows would expire before their turn' : null,
      p.neverOpen > 0 ? p.neverOpen + ' rows are in zones whose windows never overlap' : null,
      limitLine(p.messagingLimit),
      costLine(p)
    ].filter(Boolean).map(function (l) { return el('li', {}, [l]); });
    var zones = (p.timeZones || []).slice().sort(function (a, b) { return b.rows - a.rows; }).slice(0, 10).map(function (z) {
      return el('li', {}, [z.rows + ' rows in ' + z.zones.join(' & ') + (z.opensAt ? ', window opens ' + when(z.opensAt) : '')]);
    });
    container.appendChild(el('h2', {}, ['The dry run']));
    container.appendChild(el('p', { class: 'counts' }, [
      figure('rows', summary.rows), ' rows read: ', figure('valid', summary.valid), ' would be sent, ',
      figure('rejected', summary.rejected), ' rejected, ', figure('skipped', summary.skipped), ' skipped.'
    ]));
    container.appendChild(reasonsTable(summary, groups));
    container.appendChild(el('ul', { class: 'plan' }, lines));
    if (zones.length > 0) container.appendChild(el('ul', { class: 'zones' }, zones));
    container.hidden = false;
  }

  return { el: el, clear: clear, bubble: bubble, problems: problems, plan: plan, when: when, costLine: costLine };
})();
`;
