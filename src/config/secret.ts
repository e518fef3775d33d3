import { inspect } from 'node:util';

/**
 * Holds a credential so that no accidental path (a log line, JSON.stringify, util.inspect,
 * string interpolation, an error message) can print it. Only `reveal()` hands the value out,
 * and only the HTTP client calls it.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return 'Secret([redacted])';
  }
}
