/**
 * The New campaign page's pure functions, as plain browser JavaScript (no build step): the
 * CSV's header and first rows read from the start of the chosen file, the column suggestions,
 * a template's slots (whatever shape the templates answer has), the message as WhatsApp
 * would show it for a row, and the spec the page posts. They touch no DOM, so a unit test
 * runs them as they are served (in a node:vm context).
 * Written with String.raw: backslashes are the script's own.
 */
export const NEW_CAMPAIGN_LIB = String.raw`'use strict';
var NewCampaign = (function () {
  var PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
  /** A text's {{column}}: any column name without braces or line breaks, spaces inside the braces ignored (as the service reads it). */
  var TEXT_PLACEHOLDER = /\{\{([^{}\r\n]*)\}\}/g;
  /** Words a phone column's name holds, best first. */
  var PHONE_WORDS = ['phone', 'mobile', 'msisdn', 'whatsapp', 'number'];
  var DELIMITERS = [',', ';', '|', '\t'];

  /** The delimiter the header line uses most, outside quotes (the server detects it the same way when none is given). */
  function detectDelimiter(line) {
    var counts = {}; var quoted = false;
    DELIMITERS.forEach(function (d) { counts[d] = 0; });
    for (var i = 0; i < line.length; i++) {
      var c = line[i];
      if (c === '"') quoted = !quoted;
      else if (!quoted && counts[c] !== undefined) counts[c]++;
    }
    return DELIMITERS.reduce(function (best, d) { return counts[d] > counts[best] ? d : best; }, ',');
  }

  /**
   * The header and up to maxRows records of a CSV's first bytes (RFC 4180 quotes, CRLF or LF,
   * a BOM dropped). complete: the text is the whole file; otherwise its last, maybe cut, record is left out.
   */
  function parseCsvHead(text, maxRows, complete) {
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    var firstLine = text.split(/\r?\n/, 1)[0] || '';
    var delimiter = detectDelimiter(firstLine);
    var records = []; var record = []; var field = ''; var quoted = false; var i = 0;
    function endField() { record.push(field); field = ''; }
    function endRecord() { endField(); if (!(record.length === 1 && record[0] === '')) records.push(record); record = []; }
    while (i < text.length && records.length <= maxRows) {
      var c = text[i];
      if (quoted) {
        if (c === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue; }
        if (c === '"') quoted = false; else field += c;
      } else if (c === '"' && field === '') quoted = true;
      else if (c === delimiter) endField();
      else if (c === '\n' || c === '\r') { if (c === '\r' && text[i + 1] === '\n') i++; endRecord(); }
      else field += c;
      i++;
    }
    if (complete && (field !== '' || record.length > 0) && records.length <= maxRows) endRecord();
    var header = (records.shift() || []).map(function (h) { return h.trim(); });
    return { delimiter: delimiter, header: header, rows: records.slice(0, maxRows) };
  }

  /** Lower case, letters and digits only: "Order ID" and "order_id" are both "orderid". */
  function normalise(name) { return String(name).toLowerCase().replace(/[^\p{L}\p{N}]/gu, ''); }

  /** The column for a variable: the same name, else the same but for case, else the same letters and digits; null when none. */
  function suggestColumn(name, header) {
    var exact = header.filter(function (h) { return h === name; })[0];
    if (exact !== undefined) return exact;
    var lower = header.filter(function (h) { return h.toLowerCase() === String(name).toLowerCase(); })[0];
    if (lower !== undefined) return lower;
    var n = normalise(name);
    var same = header.filter(function (h) { return n !== '' && normalise(h) === n; })[0];
    return same === undefined ? null : same;
  }

  /** The phone column: one named phone, else the first whose name holds phone, mobile, msisdn, whatsapp or number (in that order). */
  function guessPhoneColumn(header) {
    for (var w = 0; w < PHONE_WORDS.length; w++) {
      var word = PHONE_WORDS[w];
      var found = header.filter(function (h) { return normalise(h) === word; })[0] ||
        header.filter(function (h) { return normalise(h).indexOf(word) >= 0; })[0];
      if (found !== undefined) return found;
    }
    return null;
  }

  /** Placeholder names in a text: positional ones by number, named ones in order of appearance. */
  function placeholders(text, positional) {
    var seen = [];
    String(text || '').replace(PLACEHOLDER, function (_all, name) { if (seen.indexOf(name) < 0) seen.push(name); return _all; });
    return positional ? seen.sort(function (a, b) { return Number(a) - Number(b); }) : seen;
  }

  function fill(text, values) {
    return String(text || '').replace(PLACEHOLDER, function (all, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? values[name] : all;
    });
  }

  function componentOf(t, type) {
    return (t.components || []).filter(function (c) { return String(c.type).toUpperCase() === type; })[0];
  }

  /**
   * A template of the templates answer as the page uses it: the API's (campaign templates
   * list --json: parameterFormat, header, bodyVariables, urlButtons, preview) or Meta's
   * (components: HEADER, BODY, FOOTER, BUTTONS).
   */
  function templateModel(t) {
    var format = String(t.parameter_format || t.parameterFormat || 'POSITIONAL').toUpperCase();
    var positional = format !== 'NAMED';
    var pv = t.preview || {};
    var h = componentOf(t, 'HEADER'); var b = componentOf(t, 'BODY'); var f = componentOf(t, 'FOOTER'); var bs = componentOf(t, 'BUTTONS');
    var header = { kind: 'none' };
    if (h) {
      var hf = String(h.format || 'TEXT').toUpperCase();
      header = hf === 'TEXT' ? { kind: 'text', text: h.text || '' }
        : hf === 'LOCATION' ? { kind: 'location' } : { kind: 'media', format: hf };
    } else if (t.header && t.header.kind && t.header.kind !== 'none') {
      var text = t.header.text || (pv.header && pv.header.text) || '';
      header = { kind: t.header.kind, text: text, format: t.header.format };
    }
    if (header.kind === 'text') header.variables = placeholders(header.text, positional);
    var bodyText = b ? b.text : typeof pv.body === 'string' ? pv.body : '';
    var footer = f ? f.text : pv.footer || null;
    var rawButtons = bs ? bs.buttons || [] : Array.isArray(pv.buttons) ? pv.buttons : [];
    var buttons = rawButtons.map(function (button, index) {
      var type = String(button.type || '').toUpperCase();
      return { index: index, type: type, text: button.text || '', variables: placeholders(button.url || '', positional) };
    });
    return {
      name: t.name, language: t.language, category: t.category || '', status: t.status || '', positional: positional,
      header: header, body: { text: bodyText || '', variables: placeholders(bodyText, positional) }, footer: footer || null,
      buttons: buttons
    };
  }

  /**
   * What the template needs from the file, in the spec's order: body variables, the header's
   * text variable or media link, then one column per URL button with a variable.
   */
  function slotsOf(model) {
    var slots = model.body.variables.map(function (v) {
      return { key: 'body:' + v, kind: 'body', name: v, label: '{{' + v + '}} in the body' };
    });
    if (model.header.kind === 'text' && model.header.variables.length > 0) {
      var hv = model.header.variables[0];
      slots.push({ key: 'header:text', kind: 'header', name: hv, label: 'the header\'s {{' + hv + '}}' });
    }
    if (model.header.kind === 'media') {
      var media = model.header.format.toLowerCase();
      slots.push({ key: 'header:media', kind: 'media', name: 'header_' + media, label: 'the header ' + media + ' (an https link)' });
    }
    model.buttons.forEach(function (button) {
      if (button.type !== 'URL' || button.variables.length === 0) return;
      var label = 'the link of button "' + button.text + '"';
      slots.push({ key: 'button:' + button.index, kind: 'button', name: button.variables[0], label: label });
    });
    return slots;
  }

  /** Suggested columns for the slots: by the variable's name (positional variables have none: left to choose). */
  function suggestMapping(model, header) {
    var mapping = {};
    slotsOf(model).forEach(function (slot) {
      var named = !(model.positional && /^\d+$/.test(slot.name));
      mapping[slot.key] = named ? suggestColumn(slot.name, header) : null;
    });
    return mapping;
  }

  function valueOf(header, row, column) {
    var i = column == null ? -1 : header.indexOf(column);
    return i < 0 ? '' : String(row[i] == null ? '' : row[i]);
  }

  /** The message for one row, as its chat bubble shows it: header, body with the values, footer, button labels. */
  function renderTemplate(model, mapping, header, row) {
    // A variable with no column yet shows as {{1}} / {{name}}: what is still to choose.
    var bodyValues = {};
    model.body.variables.forEach(function (v) {
      if (header.indexOf(mapping['body:' + v]) >= 0) bodyValues[v] = valueOf(header, row, mapping['body:' + v]);
    });
    var head = null;
    if (model.header.kind === 'text') {
      var hv = {};
      if (model.header.variables.length > 0 && header.indexOf(mapping['header:text']) >= 0)
        hv[model.header.variables[0]] = valueOf(header, row, mapping['header:text']);
      head = { kind: 'text', text: fill(model.header.text, hv) };
    } else if (model.header.kind === 'media') {
      head = { kind: 'media', format: model.header.format, url: valueOf(header, row, mapping['header:media']) };
    }
    else if (model.header.kind === 'location') head = { kind: 'location' };
    return {
      header: head, body: fill(model.body.text, bodyValues), footer: model.footer,
      buttons: model.buttons.map(function (b) { return b.text; })
    };
  }

  /** A text message for one row: its {{column}} placeholders filled from the row. */
  function renderText(body, header, row) {
    var text = String(body || '').replace(TEXT_PLACEHOLDER, function (all, name) {
      var i = header.indexOf(name.trim());
      return i < 0 ? all : String(row[i] == null ? '' : row[i]);
    });
    return { header: null, body: text, footer: null, buttons: [] };
  }

  /** The columns a text names, each once. */
  function textColumns(body) {
    var seen = [];
    String(body || '').replace(TEXT_PLACEHOLDER, function (all, name) {
      if (seen.indexOf(name.trim()) < 0) seen.push(name.trim());
      return all;
    });
    return seen;
  }

  /** The columns a row needs filled to be sent: the phone, the mapped ones, a text's placeholders. */
  function neededColumns(choice) {
    var columns = [choice.phoneColumn];
    if (choice.kind === 'text') return columns.concat(textColumns(choice.text));
    Object.keys(choice.mapping).forEach(function (k) { if (choice.mapping[k]) columns.push(choice.mapping[k]); });
    return columns;
  }

  /**
   * The first rows (with their 1-based row numbers) worth previewing: every needed column
   * filled, and not among the rows the last dry run refused.
   */
  function previewRows(head, choice, refusedRows, count) {
    var needed = neededColumns(choice).filter(Boolean);
    var out = [];
    for (var i = 0; i < head.rows.length && out.length < count; i++) {
      var row = head.rows[i];
      if (refusedRows && refusedRows.indexOf(i + 1) >= 0) continue;
      var filled = needed.every(function (c) { return valueOf(head.header, row, c).trim() !== ''; });
      if (filled) out.push({ number: i + 1, values: row });
    }
    return out;
  }

  function compact(object) {
    var out = {};
    Object.keys(object).forEach(function (k) {
      var v = object[k];
      if (v === undefined || v === null || v === '') return;
      if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) return;
      out[k] = v;
    });
    return out;
  }

  /**
   * The spec the API takes for the page's choices: campaign send's flags, camelCased
   * (src/campaigns/spec/campaign-flags.ts); empty fields are left out.
   */
  function specOf(choice) {
    var spec = {
      name: choice.name, phoneNumberId: choice.phoneNumberId, priority: choice.priority, phoneColumn: choice.phoneColumn,
      at: choice.at, validFor: choice.validFor, expiresAt: choice.expiresAt, window: choice.hours, days: choice.days
    };
    if (choice.kind === 'text') spec.text = choice.text;
    else {
      var model = choice.model;
      spec.template = model.name;
      spec.language = model.language;
      var body = model.body.variables.map(function (v) { return choice.mapping['body:' + v] || ''; });
      if (model.positional) { if (body.length > 0) spec.params = body; }
      else if (body.length > 0) {
        // A variable left without a column is left out: the service then looks for a column of its name, and names it when none is.
        spec.param = {};
        model.body.variables.forEach(function (v, i) { if (body[i]) spec.param[v] = body[i]; });
      }
      spec.headerTextColumn = choice.mapping['header:text'];
      spec.headerImageColumn = choice.mapping['header:media'];
      var buttons = slotsOf(model).filter(function (s) { return s.kind === 'button'; })
        .map(function (s) { return choice.mapping[s.key] || ''; });
      if (buttons.length > 0) spec.buttonUrlColumn = buttons;
    }
    if (choice.delimiter && choice.delimiter !== ',') spec.delimiter = choice.delimiter === '\t' ? 'tab' : choice.delimiter;
    return compact(spec);
  }

  /** A datetime-local value ("2026-12-01T09:00") as ISO 8601 with this browser's offset then; '' stays ''. */
  function isoWithOffset(local) {
    if (!local) return '';
    var d = new Date(local);
    if (isNaN(d.getTime())) return local;
    var pad = function (n) { return String(Math.abs(n)).padStart(2, '0'); };
    var off = -d.getTimezoneOffset();
    var zone = (off >= 0 ? '+' : '-') + pad(Math.trunc(off / 60)) + ':' + pad(off % 60);
    var day = d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate());
    return day + 'T' + pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':00' + zone;
  }

  /** A dry run's refused rows by reason: how many, and the first few as examples. */
  function rejectsByReason(rejects, examples) {
    var groups = [];
    (rejects || []).forEach(function (r) {
      var g = groups.filter(function (x) { return x.reason === r.reason; })[0];
      if (!g) { g = { reason: r.reason, rows: 0, examples: [] }; groups.push(g); }
      g.rows++;
      if (g.examples.length < examples) g.examples.push(r);
    });
    return groups;
  }

  return {
    parseCsvHead: parseCsvHead, normalise: normalise, suggestColumn: suggestColumn, guessPhoneColumn: guessPhoneColumn,
    placeholders: placeholders, templateModel: templateModel, slotsOf: slotsOf, suggestMapping: suggestMapping,
    renderTemplate: renderTemplate, renderText: renderText, previewRows: previewRows, specOf: specOf,
    isoWithOffset: isoWithOffset, rejectsByReason: rejectsByReason
  };
})();
`;
