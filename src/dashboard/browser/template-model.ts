import { placeholdersIn } from '../../templates/template-requirements.js';
import { partsOf, type ButtonPart, type HeaderPart, type SlotPart, type TemplateInput } from './template-parts.js';

export type { TemplateInput } from './template-parts.js';

export type ModelHeader =
  | { kind: 'none' }
  | { kind: 'text'; text: string; variables: string[] }
  | { kind: 'media'; format: string }
  | { kind: 'location' }
  | { kind: 'product' };

export interface ModelText {
  text: string;
  variables: string[];
}

export interface ModelButton {
  index: number;
  /** Meta's button type, upper case: URL, QUICK_REPLY, COPY_CODE, OTP, FLOW, CATALOG, MPM, SPM, PHONE_NUMBER… */
  type: string;
  text: string;
  variables: string[];
}

/** A carousel's card: its slots are named `card.<index>.…`. */
export interface ModelCard {
  index: number;
  header: ModelHeader;
  body: ModelText;
  buttons: ModelButton[];
}

export type ModelSlot = SlotPart;

/** A template as the page uses it, whichever shape it came in. */
export interface TemplateModel {
  name: string;
  language: string;
  category: string;
  status: string;
  positional: boolean;
  /** What kind of template it is (standard, coupon_code, media_carousel, limited_time_offer…), as the service says. */
  kind: string;
  /** Every slot a send must or may fill, in send order, as the service names them. */
  slots: ModelSlot[];
  header: ModelHeader;
  body: ModelText;
  footer: string | null;
  buttons: ModelButton[];
  /** A carousel's cards; [] for other kinds. */
  cards: ModelCard[];
  /** A limited-time offer's heading, and whether it counts down to each send's `lto.expiration`. */
  offer: { text: string; countdown: boolean } | null;
}

type Format = 'POSITIONAL' | 'NAMED';

function header(part: HeaderPart, format: Format): ModelHeader {
  return part.kind === 'text' ? { ...part, variables: placeholdersIn(part.text, format) } : part;
}

function text(value: string, format: Format): ModelText {
  return { text: value, variables: placeholdersIn(value, format) };
}

function buttons(list: readonly ButtonPart[], format: Format): ModelButton[] {
  return list.map((button, index) => ({
    index,
    type: button.type.toUpperCase(),
    text: button.text ?? '',
    variables: placeholdersIn(button.url ?? '', format),
  }));
}

/** A template of the templates answer as the page uses it: its variables found in its texts as the service finds them. */
export function templateModel(t: TemplateInput): TemplateModel {
  const parts = partsOf(t);
  const format = parts.format;
  return {
    name: t.name,
    language: t.language,
    category: t.category ?? '',
    status: t.status,
    positional: format !== 'NAMED',
    kind: parts.kind,
    slots: parts.slots,
    header: header(parts.header, format),
    body: text(parts.body, format),
    footer: parts.footer || null,
    buttons: buttons(parts.buttons, format),
    cards: parts.cards.map((card, index) => ({
      index,
      header: header(card.header, format),
      body: text(card.body, format),
      buttons: buttons(card.buttons, format),
    })),
    offer: parts.offer,
  };
}
