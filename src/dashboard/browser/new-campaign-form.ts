import type { CsvHead } from '../../csv/csv-head.js';
import type { CampaignChoice } from './campaign-choice.js';
import { bubble } from './chat-bubble.js';
import { byId, clear, el } from './dom.js';
import { isoWithOffset } from './local-time.js';
import { filledRow, slotRow } from './mapping-rows.js';
import { previewRows, renderTemplate, renderText } from './message-preview.js';
import { specOf } from './posted-spec.js';
import { filledFromOthers, slotsOf, suggestMapping, type Mapping } from './slot-choices.js';
import type { TemplateModel } from './template-model.js';

/** Rows previewed as chat bubbles. */
const PREVIEWS = 5;

/** What the page knows: the file's head, the templates, the columns chosen and suggested, the last dry run. */
export interface FormState {
  head: CsvHead | null;
  file: File | null;
  templates: TemplateModel[];
  model: TemplateModel | null;
  mapping: Mapping;
  suggested: Mapping;
  suggestedPhone: string | null;
  /** The row numbers the last dry run refused: not previewed. */
  refused: number[];
  /** The file (null: an audience) and spec the last dry run checked: Confirm is offered for exactly those. */
  checked: { file: File | null; spec: string } | null;
  /** The audience chosen as the recipients (its attributes are `head`'s header); null: a file. */
  audience: string | null;
}

export function option(value: string, label: string, selected: boolean): HTMLOptionElement {
  const o = el('option', { value }, [label]);
  if (selected) o.selected = true;
  return o;
}

const value = (id: string): string => byId<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(id).value;

/**
 * The New campaign form's columns and preview: the column choices (suggested from their names,
 * each with a note saying so), the chat bubbles of the first rows, and whether Confirm may
 * create what the last dry run checked.
 */
export class NewCampaignForm {
  readonly state: FormState = {
    head: null,
    file: null,
    templates: [],
    model: null,
    mapping: {},
    suggested: {},
    suggestedPhone: null,
    refused: [],
    checked: null,
    audience: null,
  };

  constructor(readonly form: HTMLFormElement) {}

  kind(): 'template' | 'text' {
    return this.form.querySelector<HTMLInputElement>('input[name="kind"]:checked')?.value === 'text' ? 'text' : 'template';
  }

  recipients(): 'file' | 'audience' {
    return this.form.querySelector<HTMLInputElement>('input[name="recipients"]:checked')?.value === 'audience' ? 'audience' : 'file';
  }

  /** The form's choices as the spec and the preview take them. */
  choice(): CampaignChoice {
    const { state } = this;
    return {
      kind: this.kind(),
      model: state.model,
      mapping: state.mapping,
      text: value('nc-text'),
      phoneColumn: value('nc-phone'),
      phoneNumberId: value('nc-number'),
      name: value('nc-name').trim(),
      priority: value('nc-priority'),
      at: isoWithOffset(value('nc-at')),
      validFor: value('nc-valid-for').trim(),
      expiresAt: isoWithOffset(value('nc-expires-at')),
      hours: value('nc-hours').trim(),
      days: value('nc-days').trim(),
      delimiter: state.head ? state.head.delimiter : ',',
      ...(this.recipients() === 'audience' ? { audience: state.audience ?? '', where: value('nc-where') } : {}),
    };
  }

  /** Fresh suggestions for every slot (a new file or template); the operator's changes start over. */
  suggest(): void {
    const header = this.state.head?.header ?? [];
    this.state.suggested = this.state.model ? suggestMapping(this.state.model, header) : {};
    this.state.mapping = { ...this.state.suggested };
    this.drawMapping();
    this.changed();
  }

  /** What a slot's note says of its column: suggested by its name, chosen by the operator, or still to choose. */
  noteOf(key: string): string {
    const { state } = this;
    const chosen = key === 'phone' ? value('nc-phone') : state.mapping[key];
    const suggested = key === 'phone' ? state.suggestedPhone : state.suggested[key];
    if (!state.head) return '';
    // An audience's phone is its contacts' own: no column to choose.
    if (key === 'phone' && this.recipients() === 'audience') return "the contacts' phones";
    const optional = state.model?.slots.find((s) => s.name === key)?.required === false;
    if (!chosen) return optional ? 'optional: left out of the send unless you choose a column' : 'no column matches its name: choose one';
    return chosen === suggested ? 'suggested by its name' : 'your choice';
  }

  #columnSelect(key: string, chosen: string | null | undefined): HTMLSelectElement {
    const select = el('select', { 'data-slot': key }, [option('', '(choose a column)', !chosen)]);
    for (const h of this.state.head?.header ?? []) select.appendChild(option(h, h, h === chosen));
    return select;
  }

  /** The columns table: the phone column, then one row per slot of the template (those filled from another say so). */
  drawMapping(): void {
    const body = byId<HTMLTableSectionElement>('nc-mapping');
    while (body.rows.length > 1) body.deleteRow(1);
    const phone = byId<HTMLSelectElement>('nc-phone');
    const select = this.#columnSelect('phone', phone.value || this.state.suggestedPhone);
    phone.replaceWith(select);
    select.id = 'nc-phone';
    select.disabled = this.recipients() === 'audience';
    byId('nc-phone-note').textContent = this.noteOf('phone');
    const model = this.state.model;
    if (this.kind() !== 'template' || !model) return;
    for (const slot of slotsOf(model)) {
      body.appendChild(slotRow(slot, this.#columnSelect(slot.name, this.state.mapping[slot.name]), this.noteOf(slot.name)));
    }
    for (const slot of filledFromOthers(model)) body.appendChild(filledRow(slot));
  }

  drawPreview(): void {
    const box = byId('nc-preview');
    clear(box);
    const c = this.choice();
    const head = this.state.head;
    if (!head || (c.kind === 'template' && !c.model) || (c.kind === 'text' && (c.text ?? '').trim() === '')) {
      box.appendChild(el('p', { class: 'empty' }, ['Choose a file and a message.']));
      return;
    }
    const rows = previewRows(head, c, this.state.refused, PREVIEWS);
    if (rows.length === 0) {
      box.appendChild(el('p', { class: 'empty' }, ['None of the first rows has every chosen column filled.']));
      return;
    }
    const phoneAt = head.header.indexOf(c.phoneColumn);
    for (const row of rows) {
      const message =
        c.kind === 'text' || !c.model
          ? renderText(c.text ?? '', head.header, row.values)
          : renderTemplate(c.model, c.mapping ?? {}, head.header, row.values);
      box.appendChild(bubble(message, { number: row.number, phone: row.values[phoneAt] ?? '' }));
    }
  }

  /** Anything changed: the preview follows, and Confirm waits for a dry run of the new choices. */
  changed(): void {
    this.drawPreview();
    const checked = this.state.checked;
    const same = checked !== null && checked.file === this.state.file && checked.spec === JSON.stringify(specOf(this.choice()));
    byId<HTMLButtonElement>('nc-confirm').disabled = !same;
    if (!same && checked !== null) byId('nc-status').textContent = 'Changed since the dry run: check again.';
  }
}
