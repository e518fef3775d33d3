import type { AppError } from '../../errors/app-error.js';
import { instantOf, numberOf } from './where-values.js';
import { whereSyntaxError, type WhereSource } from './where-error.js';

/**
 * The tokens of a `--where` expression. `word`: a bare identifier, keywords included (`and`, `IN`); `name`: a backquoted
 * attribute name; `string`: a quoted value; `number` and `date`: bare values; `symbol`: an operator, a parenthesis or a
 * comma. `value` is what the token means (a string without its quotes and escapes); `start`/`end` are UTF-16 offsets.
 */
export type TokenKind = 'word' | 'name' | 'string' | 'number' | 'date' | 'symbol';

export interface Token {
  readonly kind: TokenKind;
  readonly value: string;
  readonly start: number;
  readonly end: number;
}

/** The date forms read, for messages (the tokenizer's and the parser's). */
export const DATE_FORMS = 'write a date as 2026-11-01, or a date-time with its zone as 2026-11-01T09:30Z or 2026-11-01T09:30+02:00';

const WORD = /[A-Za-z_][A-Za-z0-9_.-]*/y;
/** A bare value runs as far as characters a number or a date-time may hold; what it is is decided on the whole run. */
const BARE_VALUE = /-?[0-9][0-9A-Za-z_.:+-]*/y;
const BARE_DATE = /^\d{4}-\d{2}-\d{2}(?:[Tt].*)?$/;
const BARE_NUMBER = /^-?\d+(?:\.\d+)?$/;
const SPACE = /\s/;
const SYMBOLS: Readonly<Record<string, readonly string[]>> = {
  '(': ['('],
  ')': [')'],
  ',': [','],
  '=': ['='],
  '<': ['<=', '<'],
  '>': ['>=', '>'],
};
/** Operators of other languages, each with what to write here instead. */
const FOREIGN_OPERATORS: ReadonlyArray<readonly [string, string]> = [
  ['==', 'write = (one equals sign) to compare'],
  ['!=', ''],
  ['<>', 'write != for "not equal"'],
  ['=<', 'write <='],
  ['=>', 'write >='],
  ['&&', 'write and'],
  ['||', 'write or'],
  ['&', 'write and'],
  ['|', 'write or'],
  ['!', 'write != for "not equal", or not before a condition'],
];
const CURLY_QUOTES = '“”„‘’‚«»';
const ESCAPABLE = new Set(['"', "'", '`', '\\']);

/** Splits `source.text` into tokens, or throws AUDIENCE_WHERE_INVALID at the first character that starts none. */
export function tokenize(source: WhereSource): Token[] {
  return new Tokenizer(source).all();
}

class Tokenizer {
  private readonly text: string;
  private readonly tokens: Token[] = [];
  private index = 0;

  constructor(private readonly source: WhereSource) {
    this.text = source.text;
  }

  all(): Token[] {
    while (this.index < this.text.length) {
      const character = this.text[this.index] ?? '';
      if (SPACE.test(character)) this.index++;
      else this.tokens.push(this.next(character));
    }
    return this.tokens;
  }

  private next(character: string): Token {
    if (character === '"' || character === "'") return this.quoted('string', character, 'a quoted value');
    if (character === '`') return this.quoted('name', '`', 'a backquoted attribute name');
    if (/[0-9]/.test(character) || (character === '-' && /[0-9]/.test(this.text[this.index + 1] ?? ''))) return this.bareValue();
    const word = this.match(WORD);
    if (word !== undefined) return this.token('word', word, this.index + word.length);
    return this.symbol(character);
  }

  private token(kind: TokenKind, value: string, end: number): Token {
    const token = { kind, value, start: this.index, end };
    this.index = end;
    return token;
  }

  private match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.index;
    return pattern.exec(this.text)?.[0];
  }

  private symbol(character: string): Token {
    for (const [foreign, fix] of FOREIGN_OPERATORS) {
      if (!this.text.startsWith(foreign, this.index)) continue;
      if (foreign === '!=') return this.token('symbol', '!=', this.index + 2);
      throw this.error(this.index + foreign.length, `"${foreign}" is not an operator here; ${fix}`);
    }
    for (const symbol of SYMBOLS[character] ?? []) {
      if (this.text.startsWith(symbol, this.index)) return this.token('symbol', symbol, this.index + symbol.length);
    }
    throw this.unexpected(character);
  }

  private unexpected(character: string): AppError {
    const whole = String.fromCodePoint(this.text.codePointAt(this.index) ?? 0);
    const end = this.index + whole.length;
    if (CURLY_QUOTES.includes(character))
      return this.error(end, 'typographic quotes do not quote a value; write straight ones: "DE" or \'DE\'');
    if (/\p{L}/u.test(whole)) {
      return this.error(end, 'a bare attribute name holds only A–Z, a–z, 0–9, _, . and -; write any other name in backquotes: `Straße`');
    }
    return this.error(end, 'expected an attribute name, a value, an operator, a parenthesis or a comma here; remove this character');
  }

  /** A quoted value or backquoted name, its backslash escapes resolved. */
  private quoted(kind: 'string' | 'name', quote: string, what: string): Token {
    let value = '';
    for (let at = this.index + 1; at < this.text.length; at++) {
      const character = this.text[at] ?? '';
      if (character === quote) {
        if (kind === 'name' && value === '')
          throw this.error(at + 1, 'the backquotes hold no attribute name; write the name between them: `first name`');
        return this.token(kind, value, at + 1);
      }
      if (character !== '\\') {
        value += character;
        continue;
      }
      const escaped = this.text[at + 1] ?? '';
      if (!ESCAPABLE.has(escaped)) {
        const fix =
          escaped === '' ? `end ${what} with ${quote}` : 'a backslash escapes only a quote or a backslash; write \\\\ for a backslash';
        throw this.error(at + 1 + escaped.length, fix, at);
      }
      value += escaped;
      at++;
    }
    throw this.error(this.text.length, `${what} starts here and is never closed; end it with ${quote}`);
  }

  /** A bare number (`-12.5`) or date (`2026-11-01`, `2026-11-01T09:30Z`), or a message saying what to write instead. */
  private bareValue(): Token {
    const run = this.match(BARE_VALUE) ?? '';
    const end = this.index + run.length;
    if (BARE_DATE.test(run)) {
      if (instantOf(run) !== undefined) return this.token('date', run, end);
      throw this.error(end, `${run} is not a date this filter reads; ${DATE_FORMS}`);
    }
    if (BARE_NUMBER.test(run) && numberOf(run) !== undefined) return this.token('number', run, end);
    throw this.error(end, `${run} is neither a number (12, -12.5) nor a date (2026-11-01); quote a text value: "${run}"`);
  }

  /** The problem at [start, end): `start` is where the current token begins unless told. */
  private error(end: number, problem: string, start = this.index): AppError {
    const contextStart = this.tokens[Math.max(0, this.tokens.length - 2)]?.start ?? start;
    return whereSyntaxError(this.source, { start, end, contextStart }, problem);
  }
}
