import { inspect } from 'node:util';

/**
 * Holds a credential so that no accidental path (a log line, JSON.stringify, util.inspect,
 * string interpolation, an error message) can print it. Only `reveal()` hands the value out,
 * and only the code that uses it calls it: the HTTP client (the token), and the webhook
 * service's signature and handshake checks (app secrets, verify token).
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
