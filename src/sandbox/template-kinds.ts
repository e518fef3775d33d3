import type { MessageTemplate } from '../templates/template-schema.js';

/**
 * The parts of a template a send must fill that the sandbox does not simulate: a media-card
 * carousel's cards (a `carousel` component), a limited-time offer's expiry (a
 * `limited_time_offer` component) and copy-code buttons (a `copy_code` button with the code).
 * Meta refuses a send that leaves one out as malformed, so the sandbox does too (131008, as
 * for an omitted URL button); a send that fills them is refused as not simulated, rather
 * than accepted unjudged.
 */
export interface UnsimulatedSlots {
  /** The cards of a media-card carousel; 0 without one. */
  carouselCards: number;
  limitedTimeOffer: boolean;
  /** Positions of the copy-code buttons. */
  copyCodeButtons: number[];
}

/** Component types of a send that fill these slots (Meta's send examples write them so). */
export const UNSIMULATED_COMPONENTS: ReadonlySet<string> = new Set(['carousel', 'limited_time_offer']);

export function unsimulatedSlots(template: MessageTemplate): UnsimulatedSlots {
  const slots: UnsimulatedSlots = { carouselCards: 0, limitedTimeOffer: false, copyCodeButtons: [] };
  for (const component of template.components) {
    if (component.type === 'CAROUSEL') slots.carouselCards = component.cards.length;
    else if (component.type === 'LIMITED_TIME_OFFER') slots.limitedTimeOffer = true;
    else if (component.type === 'BUTTONS') {
      component.buttons.forEach((button, index) => {
        if (button.type === 'COPY_CODE') slots.copyCodeButtons.push(index);
      });
    }
  }
  return slots;
}

/**
 * What a send leaves unfilled, worded as the sandbox's other missing values are; undefined
 * when nothing. A send never carries a carousel or limited_time_offer component here: those
 * are refused as not simulated before the template's slots are looked at.
 */
export function unfilledSlot(slots: UnsimulatedSlots, sentButtonIndexes: readonly number[]): string | undefined {
  if (slots.carouselCards > 0) {
    return `carousel: the template has ${slots.carouselCards} cards; the send has no carousel component filling them`;
  }
  if (slots.limitedTimeOffer) {
    return (
      'limited_time_offer: the template has a limited-time offer; ' +
      'the send has no limited_time_offer component with its expiration_time_ms'
    );
  }
  const copyCode = slots.copyCodeButtons.find((index) => !sentButtonIndexes.includes(index));
  return copyCode === undefined ? undefined : `buttons: Button at index ${copyCode} of type CopyCode requires a parameter`;
}
