import type { AppError } from '../../errors/app-error.js';
import { positionOf, whereSyntaxError, type WhereSource } from './where-error.js';
import { WHERE_KEYWORDS } from './where-names.js';
import type { EqualityOperator, OrderingOperator, WhereNode } from './where-syntax.js';
import { DATE_FORMS, type Token } from './where-tokens.js';
import { isMalformedDate } from './where-values.js';

/** How deep parentheses and `not`s may nest: far beyond what a person writes, well within the stack. */
export const MAX_WHERE_NESTING = 50;

const EQUALITY: ReadonlySet<string> = new Set<EqualityOperator>(['=', '!=']);
const ORDERING: ReadonlySet<string> = new Set<OrderingOperator>(['<', '<=', '>', '>=']);
const OPERATORS = '=, !=, <, <=, >, >=, in (…), not in (…), contains, is empty or is not empty';
/** How much of a name or word a suggested fix repeats. */
const MAX_SHOWN_CHARS = 40;

/** The syntax tree of `tokens` (none empty), or AUDIENCE_WHERE_INVALID at the first token that does not fit the grammar. */
export function parseTokens(source: WhereSource, tokens: readonly Token[]): WhereNode {
  return new Parser(source, tokens).parse();
}

type ValueToken = Token & { readonly kind: 'string' | 'number' | 'date' };
type WordToken = Token & { readonly kind: 'word' };
type SymbolToken = Token & { readonly kind: 'symbol' };

function isValue(token: Token | undefined): token is ValueToken {
  return token !== undefined && (token.kind === 'string' || token.kind === 'number' || token.kind === 'date');
}

function isKeyword(token: Token | undefined, keyword?: string): token is WordToken {
  if (token?.kind !== 'word') return false;
  const word = token.value.toLowerCase();
  return keyword === undefined ? WHERE_KEYWORDS.has(word) : word === keyword;
}

function isSymbol(token: Token | undefined, symbol: string): token is SymbolToken {
  return token?.kind === 'symbol' && token.value === symbol;
}

/** A bare word that is not a keyword: an attribute name where one is expected, an unquoted text where a value is. */
function isPlainWord(token: Token | undefined): token is WordToken {
  return token?.kind === 'word' && !isKeyword(token);
}

function shown(text: string): string {
  const characters = [...text];
  return characters.length > MAX_SHOWN_CHARS ? `${characters.slice(0, MAX_SHOWN_CHARS - 1).join('')}…` : text;
}

/**
 * Recursive descent over the grammar in docs/audiences.md: `or` binds loosest, then `and`, then `not`; a condition is an
 * attribute, an operator and its value(s).
 */
class Parser {
  private index = 0;
  private depth = 0;
  /** The attribute of the latest condition read, as written: a fix for what follows it names it. */
  private lastAttribute: string | undefined;

  constructor(
    private readonly source: WhereSource,
    private readonly tokens: readonly Token[],
  ) {}

  parse(): WhereNode {
    const node = this.parseOr();
    const next = this.peek();
    if (next === undefined) return node;
    if (isSymbol(next, ')')) throw this.errorAt(next, '")" closes no "("; remove it, or add the "(" it should close');
    const last = this.lastAttribute;
    const several = isValue(next) && last !== undefined ? `; for several values of one attribute, write ${last} in ("a", "b")` : '';
    throw this.errorAt(next, `expected "and", "or" or the end after a condition; join conditions with and or or${several}`);
  }

  private peek(): Token | undefined {
    return this.tokens[this.index];
  }

  private take(): Token {
    const token = this.tokens[this.index];
    if (token === undefined) throw new Error('the parser took a token past the end');
    this.index++;
    return token;
  }

  /** How a token was written, for a suggested fix (an attribute in backquotes stays in them). */
  private written(token: Token): string {
    return shown(this.source.text.slice(token.start, token.end));
  }

  private parseOr(): WhereNode {
    const operands = [this.parseAnd()];
    while (isKeyword(this.peek(), 'or')) {
      this.index++;
      operands.push(this.parseAnd());
    }
    return operands.length === 1 && operands[0] !== undefined ? operands[0] : { kind: 'or', operands };
  }

  private parseAnd(): WhereNode {
    const operands = [this.parseNot()];
    while (isKeyword(this.peek(), 'and')) {
      this.index++;
      operands.push(this.parseNot());
    }
    return operands.length === 1 && operands[0] !== undefined ? operands[0] : { kind: 'and', operands };
  }

  private parseNot(): WhereNode {
    const token = this.peek();
    if (!isKeyword(token, 'not')) return this.parsePrimary();
    this.enter(token);
    this.index++;
    const operand = this.parseNot();
    this.depth--;
    return { kind: 'not', operand };
  }

  private parsePrimary(): WhereNode {
    const open = this.peek();
    if (!isSymbol(open, '(')) return this.parseCondition();
    this.enter(open);
    this.index++;
    const inner = this.parseOr();
    const close = this.peek();
    if (!isSymbol(close, ')')) {
      const opened = `the "(" at position ${positionOf(this.source.text, open.start)}`;
      if (close === undefined) throw this.errorAt(close, `expected ")" to close ${opened}; add ")"`);
      throw this.errorAt(close, `expected ")", "and" or "or" after a condition inside ${opened}`);
    }
    this.index++;
    this.depth--;
    return inner;
  }

  private enter(token: Token): void {
    this.depth++;
    if (this.depth <= MAX_WHERE_NESTING) return;
    throw this.errorAt(
      token,
      `parentheses and "not" nest more than ${MAX_WHERE_NESTING} deep here; simplify the expression ` +
        '(and and or need no parentheses of their own; tier in ("gold", "silver") replaces a chain of or)',
    );
  }

  private parseCondition(): WhereNode {
    const token = this.peek();
    if (token?.kind !== 'name' && !isPlainWord(token)) throw this.notACondition(token);
    this.index++;
    const attribute = token.value;
    const written = this.written(token);
    this.lastAttribute = written;
    const operator = this.peek();
    if (operator?.kind === 'symbol' && (EQUALITY.has(operator.value) || ORDERING.has(operator.value))) {
      this.index++;
      return this.comparison(attribute, written, operator);
    }
    if (isKeyword(operator, 'in')) return this.list(attribute, written, false);
    if (isKeyword(operator, 'not')) {
      this.index++;
      if (isKeyword(this.peek(), 'in')) return this.list(attribute, written, true);
      throw this.errorAt(this.peek(), `expected "in" after "${written} not"; write ${written} not in ("a", "b"), or ${written} != "a"`);
    }
    if (isKeyword(operator, 'contains')) {
      this.index++;
      return { kind: 'contains', attribute, value: this.value(operator, `${written} contains`) };
    }
    if (isKeyword(operator, 'is')) return this.emptiness(attribute, written);
    throw this.notAnOperator(written, operator);
  }

  private comparison(attribute: string, written: string, operator: Token): WhereNode {
    const valueToken = this.peek();
    const value = this.value(operator, `${written} ${operator.value}`);
    if (EQUALITY.has(operator.value)) return { kind: 'equals', attribute, operator: operator.value as EqualityOperator, value };
    // A quoted literal shaped like a date but unreadable would silently compare as text: say so instead.
    if (isMalformedDate(value)) throw this.errorAt(valueToken, `"${shown(value)}" is not a date this filter reads; ${DATE_FORMS}`);
    return { kind: 'order', attribute, operator: operator.value as OrderingOperator, value };
  }

  /** `in (…)` or, `not` already taken, `not in (…)`: a list of one value or more. */
  private list(attribute: string, written: string, negated: boolean): WhereNode {
    const inWord = negated ? 'not in' : 'in';
    this.index++;
    const open = this.peek();
    if (!isSymbol(open, '(')) {
      const example = isValue(open) || isPlainWord(open) ? `"${shown(open.value)}"` : '"a", "b"';
      throw this.errorAt(open, `expected "(" after "${inWord}"; write the values in parentheses: ${written} ${inWord} (${example})`);
    }
    this.index++;
    const values: string[] = [];
    for (;;) {
      const token = this.peek();
      if (isSymbol(token, ')') && values.length === 0) {
        throw this.errorAt(token, `the list is empty; give at least one value: ${written} ${inWord} ("a")`);
      }
      values.push(this.value(this.tokens[this.index - 1] ?? open, `${written} ${inWord} (`, ')'));
      const separator = this.peek();
      this.index++;
      if (isSymbol(separator, ')')) return { kind: 'in', attribute, values, negated };
      if (isSymbol(separator, ',')) continue;
      const fix = isValue(separator) ? 'separate the values with commas: ("a", "b")' : `close the list: ${written} ${inWord} ("a", "b")`;
      throw this.errorAt(separator, `expected "," or ")" after a value in the list; ${fix}`);
    }
  }

  /** `is empty` or `is not empty`, `is` not yet taken. */
  private emptiness(attribute: string, written: string): WhereNode {
    this.index++;
    const negated = isKeyword(this.peek(), 'not');
    if (negated) this.index++;
    const empty = this.peek();
    if (isKeyword(empty, 'empty')) {
      this.index++;
      return { kind: 'empty', attribute, negated };
    }
    const fix = isValue(empty) ? `to compare with a value, write ${written} ${negated ? '!=' : '='} ${this.written(empty)}` : '';
    throw this.errorAt(
      empty,
      `expected "empty" after "is${negated ? ' not' : ''}"; write ${written} is empty or ${written} is not empty${fix && `; ${fix}`}`,
    );
  }

  /** The value after `after` (an operator, `(` or `,`); the suggested fix puts one between `prefix` and `suffix`. */
  private value(after: Token, prefix: string, suffix = ''): string {
    const token = this.peek();
    if (isValue(token)) {
      this.index++;
      return token.value;
    }
    const space = prefix.endsWith('(') ? '' : ' ';
    const fixWith = (value: string): string => `write ${prefix}${space}"${shown(value)}"${suffix}`;
    if (isPlainWord(token)) throw this.errorAt(token, `a text value is written in quotes; ${fixWith(token.value)}`);
    if (token?.kind === 'name') {
      const why = 'a backquoted name is an attribute, not a value (a condition compares an attribute with a value)';
      throw this.errorAt(token, `${why}; ${fixWith(token.value)}`);
    }
    throw this.errorAt(token, `expected a value after "${after.value}": a quoted text, a number or a date; ${fixWith('value')}`);
  }

  private notACondition(token: Token | undefined): AppError {
    const previous = this.tokens[this.index - 1];
    if (token === undefined) {
      // The text is not empty (parseWhere says so first), so something precedes the end.
      const after = previous === undefined ? '' : this.written(previous);
      return this.errorAt(token, `expected a condition after "${after}"; add one, as in tier = "gold", or remove the "${after}"`);
    }
    if (isKeyword(token)) {
      const backquoted = `\`${token.value}\` = "x"`;
      return this.errorAt(
        token,
        `expected a condition, found the keyword "${token.value}"; remove it, or backquote an attribute of that name: ${backquoted}`,
      );
    }
    if (isSymbol(token, ')'))
      return this.errorAt(token, 'expected a condition before ")"; write one inside the parentheses, or remove them');
    if (isValue(token))
      return this.errorAt(token, 'expected an attribute name, found a value; a condition names the attribute first: country = "DE"');
    return this.errorAt(token, `expected an attribute name before "${token.value}"; a condition names the attribute first: country = "DE"`);
  }

  private notAnOperator(written: string, token: Token | undefined): AppError {
    if (token === undefined) return this.errorAt(token, `expected an operator after ${written}: ${OPERATORS}; write ${written} = "value"`);
    if (isValue(token))
      return this.errorAt(token, `expected an operator between ${written} and its value; write ${written} = ${this.written(token)}`);
    const like = ['like', 'has', 'includes'].includes(token.value.toLowerCase())
      ? `; for a part of the text, write ${written} contains "value"`
      : '';
    return this.errorAt(token, `expected an operator after ${written}, one of ${OPERATORS}${like}`);
  }

  /** The problem at `token`, or at the end of the text when there is none; the excerpt starts two tokens before. */
  private errorAt(token: Token | undefined, problem: string): AppError {
    const at = token === undefined ? this.tokens.length : this.tokens.indexOf(token);
    const contextStart = this.tokens[Math.max(0, at - 2)]?.start ?? 0;
    const text = this.source.text;
    const spot =
      token === undefined ? { start: text.length, end: text.length, contextStart } : { start: token.start, end: token.end, contextStart };
    return whereSyntaxError(this.source, spot, problem);
  }
}
