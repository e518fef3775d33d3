import type { Mapping } from './slot-choices.js';
import type { TemplateModel } from './template-model.js';

/**
 * What the New campaign page's form says, as the page's functions take it: the message (a
 * template with its columns, or a text), the phone column, and the fields of "When and how" as
 * typed (times already with the browser's offset). Empty fields are left out of the spec.
 */
export interface CampaignChoice {
  kind: 'template' | 'text';
  /** The template chosen; null while none is. */
  model?: TemplateModel | null;
  mapping?: Mapping;
  text?: string;
  phoneColumn: string;
  phoneNumberId?: string;
  name?: string;
  priority?: string;
  at?: string;
  validFor?: string;
  expiresAt?: string;
  /** The send window (`window` in the spec). */
  hours?: string;
  days?: string;
  /** The file's, as the page detected it. */
  delimiter?: string;
  /** Recipients from a stored audience instead of a file (the service then names the phone column itself). */
  audience?: string;
  /** With `audience`: the filter choosing its contacts. */
  where?: string;
}
