import { z } from 'zod';
import { AppError } from '../errors/app-error.js';
import { ProblemsError } from '../errors/problems-error.js';
import { MAX_TEXT_CHARS, textValueProblem, valueProblemDetail } from './parameter-rules.js';
import type { RejectionReason } from './rejection-reasons.js';
import { TEXT_PLACEHOLDER } from './text-placeholder.js';

/**
 * A text campaign (`campaign send FILE --text "Hi {{name}}, your order {{order_id}} …"`): a
 * free-form message (reference §1.3) whose placeholders name CSV columns. The campaign keeps
 * the body once; a row keeps only its values, in `columns` order, as a template row keeps its
 * slot values, so a text row costs Redis no more than a template row. The worker fills the
 * body when it sends.
 */
export const textPlanSchema = z.object({
  /** The body as given, placeholders included. */
  body: z.string(),
  /** `--preview-url`: WhatsApp shows a preview of the first http(s) link. */
  previewUrl: z.boolean(),
  /** Each column a placeholder names, once, in order of first use: a row's values are in this order. */
  columns: z.array(z.string()),
});
export type TextPlan = z.infer<typeof textPlanSchema>;

/** The body cut at its placeholders: literals.length === names.length + 1. */
interface SplitBody {
  literals: string[];
  /** Where each literal starts in the body (0-based). */
  starts: number[];
  names: string[];
  /** Where each placeholder starts in the body (0-based). */
  at: number[];
}

function split(body: string): SplitBody {
  const cut: SplitBody = { literals: [], starts: [], names: [], at: [] };
  let from = 0;
  for (const match of body.matchAll(TEXT_PLACEHOLDER)) {
    cut.literals.push(body.slice(from, match.index));
    cut.starts.push(from);
    cut.names.push((match[1] ?? '').trim());
    cut.at.push(match.index);
    from = match.index + match[0].length;
  }
  cut.literals.push(body.slice(from));
  cut.starts.push(from);
  return cut;
}

/**
 * Checks `--text` on its own, before any file is opened: not empty, every `{{…}}` names a
 * column, no stray `{{` or `}}`, no control or bidi character, and the fixed part alone fits
 * Meta's 4,096 characters. Returns the columns it names, each once, in order of first use.
 */
export function parseTextBody(body: string, name: string): string[] {
  const refuse = (problem: string) => new AppError('OPTION_INVALID', `${name} ${problem}`);
  if (body.trim() === '') throw refuse(`is empty: give the message, e.g. ${name} "Hi {{name}}, your order {{order_id}} has shipped."`);
  const { literals, starts, names, at } = split(body);
  const unnamed = names.findIndex((name) => name === '');
  if (unnamed >= 0)
    throw refuse(
      `has a placeholder with no column name at character ${(at[unnamed] ?? 0) + 1}: write {{column}} with a column of the file`,
    );
  for (const [i, literal] of literals.entries()) {
    const stray = /\{\{|\}\}/.exec(literal);
    if (stray !== null) {
      throw refuse(
        `has a stray "${stray[0]}" at character ${(starts[i] ?? 0) + stray.index + 1}: a placeholder is ` +
          `{{column}} on one line, with a column of the file between the braces`,
      );
    }
  }
  const problem = textValueProblem(body.trim());
  if (problem === 'VALUE_EMPTY') throw refuse('has only spaces and invisible characters: give the message');
  if (problem !== undefined) throw refuse(valueProblemDetail(body, problem).replace('from the cell', 'from the text'));
  const fixed = literals.reduce((n, literal) => n + literal.length, 0);
  if (fixed > MAX_TEXT_CHARS) {
    throw refuse(
      `is ${fixed.toLocaleString('en-US')} characters without its placeholders; Meta allows ` +
        `${MAX_TEXT_CHARS.toLocaleString('en-US')} for the whole message`,
    );
  }
  return [...new Set(names)];
}

/**
 * The plan of `--text` for a CSV header: every placeholder must name one of its columns,
 * otherwise the file is refused before any row is read, naming the placeholders and the
 * columns the file has.
 */
export function planText(body: string, previewUrl: boolean, header: readonly string[], file: string, name: string): TextPlan {
  const columns = parseTextBody(body, name);
  const missing = columns.filter((column) => !header.includes(column));
  if (missing.length > 0) {
    const hints = missing.map((name) => {
      const near = header.find((column) => column.toLowerCase() === name.toLowerCase());
      return `{{${name}}}${near === undefined ? '' : ` (did you mean {{${near}}}?)`}`;
    });
    const found = `Columns found: ${header.map((c) => `"${c}"`).join(', ')}`;
    // One message for the operator; an item per missing column for the API.
    throw new ProblemsError(
      missing.map((column, i) => ({
        code: 'CSV_HEADER_INVALID',
        detail: `${file}: the text's placeholder ${hints[i]} names no column of the file. ${found}`,
        column,
      })),
      {
        code: 'CSV_HEADER_INVALID',
        message:
          `${file}: the text's placeholder${missing.length > 1 ? 's' : ''} ${hints.join(', ')} ` +
          `name${missing.length > 1 ? '' : 's'} no column of the file. ` +
          `${found}. Fix the placeholder or the header; nothing was enqueued.`,
      },
    );
  }
  return { body, previewUrl, columns };
}

/**
 * The body cut at its placeholders, each placeholder as the index of its column in `columns`
 * (-1: a name the plan does not list, left in the text as written). Worked out once per plan,
 * so checking a row's length allocates nothing.
 */
interface TextModel {
  literals: string[];
  slots: number[];
  /** The placeholders' names, for one the plan does not list. */
  names: string[];
  fixed: number;
}

const models = new WeakMap<TextPlan, TextModel>();

function modelOf(plan: TextPlan): TextModel {
  let model = models.get(plan);
  if (model === undefined) {
    const { literals, names } = split(plan.body);
    const slots = names.map((name) => plan.columns.indexOf(name));
    // A name the plan does not list stays as written (a hand-edited definition): it counts as fixed text.
    const unfilled = names.reduce((n, name, i) => (slots[i] === -1 ? n + `{{${name}}}`.length : n), 0);
    model = { literals, slots, names, fixed: literals.reduce((n, literal) => n + literal.length, unfilled) };
    models.set(plan, model);
  }
  return model;
}

/** The body's length with these values, in UTF-16 code units (see MAX_TEXT_CHARS). */
export function filledTextLength(plan: TextPlan, values: readonly string[]): number {
  const model = modelOf(plan);
  let length = model.fixed;
  for (const slot of model.slots) if (slot >= 0) length += values[slot]?.length ?? 0;
  return length;
}

/** The body with this row's values in place of its placeholders. */
export function fillText(plan: TextPlan, values: readonly string[]): string {
  const { literals, slots, names } = modelOf(plan);
  let text = literals[0] ?? '';
  slots.forEach((slot, i) => {
    text += (slot >= 0 ? values[slot] : `{{${names[i] ?? ''}}}`) ?? '';
    text += literals[i + 1] ?? '';
  });
  return text;
}

/** TEXT_TOO_LONG when the filled body would exceed Meta's 4,096 characters. */
export function textTooLong(plan: TextPlan, values: readonly string[]): { reason: RejectionReason; detail: string } | undefined {
  const length = filledTextLength(plan, values);
  if (length <= MAX_TEXT_CHARS) return undefined;
  return {
    reason: 'TEXT_TOO_LONG',
    detail:
      `the text with this row's values is ${length.toLocaleString('en-US')} characters, Meta allows ` +
      `${MAX_TEXT_CHARS.toLocaleString('en-US')}; shorten the values`,
  };
}
