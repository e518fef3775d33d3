import { AppError, isAppError } from '../../errors/app-error.js';
import { ProblemsError, type ProblemItem } from '../../errors/problems-error.js';
import { SPEC_FIELDS, type FieldNames, type SpecField } from './field-names.js';

/**
 * Runs independent checks of a spec and keeps every refusal instead of stopping at the first,
 * so its sender fixes them all in one go. One problem is thrown as it is (its own code and
 * message); several as one ProblemsError, an item per problem naming its field.
 */
export class SpecProblems {
  readonly #names: FieldNames;
  readonly #errors: AppError[] = [];

  constructor(names: FieldNames) {
    this.#names = names;
  }

  /** The check's value, or undefined when it refused (kept); anything but an AppError is a bug and goes on up. */
  check<T>(run: () => T): T | undefined {
    try {
      return run();
    } catch (error) {
      if (!isAppError(error)) throw error;
      this.#errors.push(error);
      return undefined;
    }
  }

  get count(): number {
    return this.#errors.length;
  }

  throwIfAny(): void {
    const [first, ...rest] = this.#errors;
    if (first === undefined) return;
    if (rest.length === 0) throw first;
    throw new ProblemsError(this.#errors.flatMap((error) => specProblemItems(error, this.#names)));
  }
}

/** A refusal of a spec as problem items, each naming its field as `names` calls it (found in the message by that name). */
export function specProblemItems(error: AppError, names: FieldNames): ProblemItem[] {
  if (error instanceof ProblemsError) return [...error.problems];
  const field = fieldOfMessage(error.message, names);
  return [{ code: error.code, detail: error.message, ...(field === undefined ? {} : { field: names[field] }) }];
}

/**
 * Items as the API answers them, each naming its field or column: an item that names neither
 * gets the field its detail names first, else `fallback` (what the problem is about).
 */
export function withFields(items: readonly ProblemItem[], names: FieldNames, fallback: string): ProblemItem[] {
  return items.map((item) => {
    if (item.field !== undefined || item.column !== undefined) return item;
    const field = fieldOfMessage(item.detail, names);
    return { ...item, field: field === undefined ? fallback : names[field] };
  });
}

/** The field a message is about: the one it names first (the longest name where two start at the same place). */
export function fieldOfMessage(message: string, names: FieldNames): SpecField | undefined {
  let found: { field: SpecField; at: number; length: number } | undefined;
  for (const field of SPEC_FIELDS) {
    const name = names[field];
    const at = indexOfName(message, name);
    if (at < 0) continue;
    if (found === undefined || at < found.at || (at === found.at && name.length > found.length)) found = { field, at, length: name.length };
  }
  return found?.field;
}

/** Where `name` appears as a whole name (`window.days`, not inside `window.daysx`; `--at`, not inside `--attach`; `at`, not in `what`). */
function indexOfName(message: string, name: string): number {
  for (let at = message.indexOf(name); at >= 0; at = message.indexOf(name, at + 1)) {
    const next = message[at + name.length];
    const before = at === 0 ? undefined : message[at - 1];
    const whole = (next === undefined || !/[\w.-]/.test(next)) && (before === undefined || !/[\w.-]/.test(before));
    if (whole) return at;
  }
  return -1;
}
