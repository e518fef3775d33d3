import { suggestColumn } from './column-suggestions.js';
import type { ModelSlot, TemplateModel } from './template-model.js';

/** Each mapped slot's column, by the slot's name (`body.1`, `card.0.header.image`); null while none is chosen. */
export type Mapping = Record<string, string | null>;

/** A slot of the carousel's cards: `card.<index>.…`. */
const CARD = /^card\.\d+\./;

/** The slots the operator maps, in send order: every slot but those filled from another (sameAs). */
export function slotsOf(model: TemplateModel): ModelSlot[] {
  return model.slots.filter((s) => s.sameAs === null);
}

/** The slots filled from another slot's column (an authentication code's button from `body.1`): shown, not chosen. */
export function filledFromOthers(model: TemplateModel): ModelSlot[] {
  return model.slots.filter((s) => s.sameAs !== null);
}

/** A named template's variable in a slot of the message's own header, body or URL button; undefined for a positional one. */
function variableOf(model: TemplateModel, slot: ModelSlot): string | undefined {
  if (model.positional || CARD.test(slot.name)) return undefined;
  if (slot.kind === 'text') return slot.name.split('.').slice(1).join('.');
  const button = /^button\.(\d+)\.url$/.exec(slot.name);
  return button ? model.buttons[Number(button[1])]?.variables[0] : undefined;
}

/**
 * The names a slot's column may have, best first: the slot's own (the service fills a slot from
 * a column of its name too); a named template's variable; for a required value of the message's
 * own (a coupon code, an offer's expiration, a location, a catalog ID), the word for its kind.
 * Positional variables have no name to go by, and a card's slots share their words with every
 * other card's: those are left to choose unless a column is named as the slot.
 */
function namesFor(model: TemplateModel, slot: ModelSlot): string[] {
  const names = [slot.name];
  const variable = variableOf(model, slot);
  if (variable !== undefined) names.push(variable);
  else if (slot.required && !CARD.test(slot.name) && slot.kind !== 'text' && slot.kind !== 'url') {
    names.push(slot.kind === 'media' ? (slot.name.split('.').pop() ?? slot.kind) : slot.kind);
  }
  return names;
}

/** Suggested columns for the mapped slots, by their names; null where none fits. */
export function suggestMapping(model: TemplateModel, header: readonly string[]): Mapping {
  const mapping: Mapping = {};
  for (const slot of slotsOf(model)) {
    mapping[slot.name] = namesFor(model, slot).reduce<string | null>((found, name) => found ?? suggestColumn(name, header), null);
  }
  return mapping;
}

/** The column filling a slot: its own, or for a slot filled from another, that one's. */
export function columnOf(model: TemplateModel, mapping: Mapping, name: string): string | null {
  const slot = model.slots.find((s) => s.name === name);
  return mapping[slot?.sameAs ?? name] ?? null;
}
