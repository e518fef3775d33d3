import { el } from './dom.js';
import type { ModelSlot } from './template-model.js';

/** What a slot's row says it needs: its name as the spec and the CLI write it, what it is, whether a send must carry it. */
export function slotLabel(slot: ModelSlot): HTMLElement {
  return el('td', {}, [
    el('code', { class: 'slot-name' }, [slot.name]),
    slot.required
      ? el('span', { class: 'required', title: 'a send must carry it' }, [' required'])
      : el('span', { class: 'sub' }, [' optional']),
    el('div', { class: 'sub slot-about' }, [slot.about]),
  ]);
}

/** A row for a slot filled from another's column (an authentication code's button): no choice, it says from which slot. */
export function filledRow(slot: ModelSlot): HTMLTableRowElement {
  const from = `filled from ${slot.sameAs ?? ''}: the same value`;
  return el('tr', { 'data-slot-row': slot.name, 'data-same-as': slot.sameAs }, [
    slotLabel(slot),
    el('td', { class: 'sub' }, [from]),
    el('td'),
  ]);
}

/** A slot's row: its label, the column's select, and the note on the choice. */
export function slotRow(slot: ModelSlot, select: HTMLSelectElement, note: string): HTMLTableRowElement {
  const row = el('tr', { 'data-slot-row': slot.name }, [
    slotLabel(slot),
    el('td', {}, [select]),
    el('td', { class: 'sub', 'data-note': slot.name }, [note]),
  ]);
  if (slot.required) select.setAttribute('aria-required', 'true');
  return row;
}
