import { NEW_CAMPAIGN_LIB } from './new-campaign-lib.js';
import { NEW_CAMPAIGN_RESULTS } from './new-campaign-results.js';

/**
 * The New campaign page's controller, as plain browser JavaScript: loads the numbers and
 * templates from the API, reads the chosen file's first rows, offers the columns (suggested
 * from their names), draws the preview, and posts the file and spec to the API (dry run,
 * then Confirm). Confirm is offered only for the choices the last dry run checked.
 */
const CONTROLLER = String.raw`'use strict';
(function () {
  var form = document.getElementById('new-campaign');
  if (!form) return;
  var N = NewCampaign; var R = NewCampaignResults;
  var token = form.getAttribute('data-csrf-token') || '';
  /** Enough of the file for its header and a few hundred rows. */
  var HEAD_BYTES = 512 * 1024;
  var $ = function (id) { return document.getElementById(id); };
  var state = { head: null, file: null, templates: [], model: null, mapping: {}, suggested: {}, refused: [], checked: null };

  function api(path, options) {
    var o = options || {};
    var headers = { accept: 'application/json', 'x-csrf-token': token };
    return fetch(path, { method: o.method || 'GET', headers: headers, body: o.body, credentials: 'same-origin', cache: 'no-store' })
      .then(function (response) {
        return response.text().then(function (text) {
          var body = text;
          try { body = JSON.parse(text); } catch (e) { /* not JSON: shown as text */ }
          return { status: response.status, ok: response.ok, body: body };
        });
      });
  }

  /** The list in an answer: the answer itself, or its key (or data) member. */
  function listOf(body, key) {
    if (Array.isArray(body)) return body;
    return body && Array.isArray(body[key]) ? body[key] : body && Array.isArray(body.data) ? body.data : [];
  }

  function option(value, label, selected) {
    var o = R.el('option', { value: value }, [label]);
    if (selected) o.selected = true;
    return o;
  }

  function loadError(text) { var e = $('nc-load-error'); e.textContent = text; e.hidden = false; }

  function loadNumbers() {
    return api('/api/v1/numbers').then(function (answer) {
      if (!answer.ok) return loadError('The numbers could not be read (HTTP ' + answer.status + ').');
      var select = $('nc-number'); R.clear(select);
      var numbers = listOf(answer.body, 'numbers');
      if (numbers.length === 0) select.appendChild(option('', '(none known: set WHATSAPP_PHONE_NUMBER_ID)', true));
      numbers.forEach(function (n) {
        var rate = n.sendRate === 0 ? 'unpaced' : n.sendRate + ' msg/s';
        var label = n.phoneNumberId + ' (' + rate + (n.portfolio && n.portfolio !== 'default' ? ', portfolio ' + n.portfolio : '') + ')';
        select.appendChild(option(n.phoneNumberId, label, n.isDefault === true));
      });
    });
  }

  function loadTemplates() {
    return api('/api/v1/templates').then(function (answer) {
      if (!answer.ok) return loadError('The templates could not be read (HTTP ' + answer.status + ').');
      state.templates = listOf(answer.body, 'templates').map(N.templateModel);
      var names = [];
      state.templates.forEach(function (t) { if (names.indexOf(t.name) < 0) names.push(t.name); });
      var select = $('nc-template'); R.clear(select);
      select.appendChild(option('', '(choose a template)', true));
      names.sort().forEach(function (name) { select.appendChild(option(name, name, false)); });
    });
  }

  function kind() { return form.querySelector('input[name="kind"]:checked').value; }

  function chooseTemplate() {
    var name = $('nc-template').value;
    var languages = state.templates.filter(function (t) { return t.name === name; });
    var select = $('nc-language'); R.clear(select);
    languages.forEach(function (t, i) {
      select.appendChild(option(t.language, t.language + (t.status && t.status !== 'APPROVED' ? ' (' + t.status + ')' : ''), i === 0));
    });
    chooseLanguage();
  }

  function chooseLanguage() {
    var name = $('nc-template').value; var language = $('nc-language').value;
    state.model = state.templates.filter(function (t) { return t.name === name && t.language === language; })[0] || null;
    var m = state.model;
    var note = m ? m.category + ' · ' + m.status + ' · ' + (m.positional ? 'positional' : 'named') + ' variables' : '';
    $('nc-template-note').textContent = note;
    suggest();
  }

  /** Fresh suggestions for every slot (a new file or template); the operator's changes start over. */
  function suggest() {
    var header = state.head ? state.head.header : [];
    state.suggested = state.model ? N.suggestMapping(state.model, header) : {};
    state.mapping = Object.assign({}, state.suggested);
    drawMapping(); changed();
  }

  function columnSelect(key, chosen) {
    var header = state.head ? state.head.header : [];
    var select = R.el('select', { 'data-slot': key }, [option('', '(choose a column)', !chosen)]);
    header.forEach(function (h) { select.appendChild(option(h, h, h === chosen)); });
    return select;
  }

  function noteOf(key) {
    var chosen = key === 'phone' ? $('nc-phone').value : state.mapping[key];
    var suggested = key === 'phone' ? state.suggestedPhone : state.suggested[key];
    if (!state.head) return '';
    if (!chosen) return 'no column matches its name: choose one';
    return chosen === suggested ? 'suggested by its name' : 'your choice';
  }

  function drawMapping() {
    var body = $('nc-mapping');
    while (body.rows.length > 1) body.deleteRow(1);
    var phone = $('nc-phone'); var keep = phone.value || state.suggestedPhone;
    phone.replaceWith(columnSelect('phone', keep)); $('nc-mapping').querySelector('select[data-slot="phone"]').id = 'nc-phone';
    $('nc-phone-note').textContent = noteOf('phone');
    if (kind() !== 'template' || !state.model) return;
    N.slotsOf(state.model).forEach(function (slot) {
      var note = R.el('td', { class: 'sub', 'data-note': slot.key }, [noteOf(slot.key)]);
      var select = R.el('td', {}, [columnSelect(slot.key, state.mapping[slot.key])]);
      body.appendChild(R.el('tr', { 'data-slot-row': slot.key }, [R.el('td', {}, [slot.label]), select, note]));
    });
  }

  function choice() {
    return {
      kind: kind(), model: state.model, mapping: state.mapping, text: $('nc-text').value, phoneColumn: $('nc-phone').value,
      phoneNumberId: $('nc-number').value, name: $('nc-name').value.trim(), priority: $('nc-priority').value,
      at: N.isoWithOffset($('nc-at').value), validFor: $('nc-valid-for').value.trim(), expiresAt: N.isoWithOffset($('nc-expires-at').value),
      hours: $('nc-hours').value.trim(), days: $('nc-days').value.trim(), delimiter: state.head ? state.head.delimiter : ','
    };
  }

  function drawPreview() {
    var box = $('nc-preview'); R.clear(box);
    var c = choice();
    if (!state.head || (c.kind === 'template' && !c.model) || (c.kind === 'text' && c.text.trim() === '')) {
      box.appendChild(R.el('p', { class: 'empty' }, ['Choose a file and a message.'])); return;
    }
    var rows = N.previewRows(state.head, c, state.refused, 5);
    if (rows.length === 0) {
      box.appendChild(R.el('p', { class: 'empty' }, ['None of the first rows has every chosen column filled.']));
      return;
    }
    var header = state.head.header;
    rows.forEach(function (r) {
      var message = c.kind === 'text' ? N.renderText(c.text, header, r.values) : N.renderTemplate(c.model, c.mapping, header, r.values);
      var phone = r.values[header.indexOf(c.phoneColumn)] || '';
      box.appendChild(R.bubble(message, { number: r.number, phone: phone }));
    });
  }

  /** Anything changed: the preview follows, and Confirm waits for a dry run of the new choices. */
  function changed() {
    drawPreview();
    var same = state.checked !== null && state.checked.file === state.file && state.checked.spec === JSON.stringify(N.specOf(choice()));
    $('nc-confirm').disabled = !same;
    if (!same && state.checked !== null) $('nc-status').textContent = 'Changed since the dry run: check again.';
  }

  function readFile() {
    var file = $('nc-file').files[0];
    state.file = file || null; state.refused = []; state.checked = null;
    if (!file) { state.head = null; suggest(); return; }
    file.slice(0, HEAD_BYTES).text().then(function (text) {
      state.head = N.parseCsvHead(text, 200, file.size <= HEAD_BYTES);
      var h = state.head;
      state.suggestedPhone = N.guessPhoneColumn(h.header);
      $('nc-phone').value = '';
      $('nc-file-summary').textContent = file.name + ': ' + h.header.length + ' columns (' + h.header.join(', ') + '), delimiter ' +
        (h.delimiter === '\t' ? 'tab' : '"' + h.delimiter + '"') + ', ' + file.size + ' bytes';
      suggest();
    });
  }

  function post(dryRun) {
    if (!state.file) { R.problems($('nc-problems'), 0, { detail: 'Choose a CSV file first.' }); return Promise.resolve(); }
    var spec = N.specOf(choice());
    var data = new FormData();
    data.append('spec', JSON.stringify(spec));
    data.append('file', state.file, state.file.name);
    R.clear($('nc-problems'));
    $('nc-status').textContent = dryRun ? 'Checking the file…' : 'Creating the campaign…';
    $('nc-check').disabled = true; $('nc-confirm').disabled = true;
    return api('/api/v1/campaigns' + (dryRun ? '?dryRun=true' : ''), { method: 'POST', body: data }).then(function (answer) {
      $('nc-check').disabled = false;
      if (!answer.ok) {
        $('nc-status').textContent = ''; state.checked = null; $('nc-plan').hidden = true;
        R.problems($('nc-problems'), answer.status, answer.body); return;
      }
      if (!dryRun) { window.location.assign('/campaigns/' + encodeURIComponent(answer.body.id)); return; }
      var rejects = answer.body.rejects || [];
      state.refused = rejects.map(function (r) { return r.row; });
      R.plan($('nc-plan'), answer.body, N.rejectsByReason(rejects, 3));
      state.checked = { file: state.file, spec: JSON.stringify(spec) };
      changed();
      $('nc-confirm').disabled = !(answer.body.valid > 0);
      $('nc-status').textContent = answer.body.valid > 0 ? 'Checked: Confirm creates it.' : 'No row would be sent.';
    }, function () {
      $('nc-check').disabled = false; $('nc-status').textContent = 'The service did not answer.';
    });
  }

  form.addEventListener('submit', function (e) { e.preventDefault(); });
  $('nc-file').addEventListener('change', readFile);
  $('nc-template').addEventListener('change', chooseTemplate);
  $('nc-language').addEventListener('change', chooseLanguage);
  form.addEventListener('change', function (e) {
    var t = e.target;
    if (t.name === 'kind') {
      $('nc-template-fields').hidden = kind() !== 'template'; $('nc-text-fields').hidden = kind() !== 'text';
      drawMapping(); changed(); return;
    }
    var slot = t.getAttribute && t.getAttribute('data-slot');
    if (slot && slot !== 'phone') state.mapping[slot] = t.value || null;
    var note = slot ? form.querySelector('[data-note="' + slot + '"]') || (slot === 'phone' ? $('nc-phone-note') : null) : null;
    if (note) note.textContent = noteOf(slot);
    if (t.id !== 'nc-file' && t.id !== 'nc-template' && t.id !== 'nc-language') changed();
  });
  form.addEventListener('input', function (e) { if (e.target.tagName !== 'SELECT' && e.target.type !== 'file') changed(); });
  $('nc-check').addEventListener('click', function () { post(true); });
  $('nc-confirm').addEventListener('click', function () { post(false); });
  Promise.all([loadNumbers(), loadTemplates()]).then(function () { form.setAttribute('data-ready', '1'); },
    function () { loadError('The service did not answer: reload the page.'); });
})();
`;

/** The page's script file: the functions, the renderers, then the controller. */
export const NEW_CAMPAIGN_SCRIPT = `${NEW_CAMPAIGN_LIB}\n${NEW_CAMPAIGN_RESULTS}\n${CONTROLLER}`;
