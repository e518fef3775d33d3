import { AppError } from '../../errors/app-error.js';
import type { SendPlan, Slot } from '../send-plan.js';
import type { TextPlan } from '../text-plan.js';

/** Where each value of a row is, by field index, for one file's header. */
export interface ColumnMapping {
  fieldCount: number;
  phone: number;
  /** Field index of each plan slot, in slot order. */
  slots: { index: number; column: string; slot: Slot }[];
  headerMedia: { index: number; column: string } | undefined;
}

/**
 * Indexes of the plan's columns in the header; a file without the phone column is refused whole, naming the option that sets it
 * (`phoneOption`).
 */
export function resolveColumns(
  header: readonly string[],
  plan: Pick<SendPlan, 'slots' | 'headerMedia'>,
  phoneColumn: string,
  file: string,
  phoneOption: string,
): ColumnMapping {
  const phone = header.indexOf(phoneColumn);
  if (phone < 0) {
    throw new AppError(
      'CSV_HEADER_INVALID',
      `${file}: the header has no phone column "${phoneColumn}". Columns found: ${header.map((c) => `"${c}"`).join(', ')}. ` +
        `Rename the column or pass ${phoneOption}; nothing was enqueued.`,
    );
  }
  const indexOf = (column: string): number => {
    const index = header.indexOf(column);
    // planSend checked every column against this header: a miss here is a bug, not bad input.
    if (index < 0) throw new Error(`column "${column}" vanished from the header`);
    return index;
  };
  return {
    fieldCount: header.length,
    phone,
    slots: plan.slots.map((slot) => ({ index: indexOf(slot.column), column: slot.column, slot })),
    headerMedia: plan.headerMedia === undefined ? undefined : { index: indexOf(plan.headerMedia.column), column: plan.headerMedia.column },
  };
}

/** A text campaign's columns as slots, in its values' order: each fills body placeholders. */
export function textColumns(text: TextPlan): Pick<SendPlan, 'slots'> {
  return { slots: text.columns.map((column) => ({ name: `body.${column}`, kind: 'text', component: 'body', variable: column, column })) };
}
