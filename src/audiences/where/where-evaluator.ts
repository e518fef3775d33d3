import type { WhereNode } from './where-syntax.js';
import { orderAgainst } from './where-values.js';

/** A contact's attributes: name → cell. */
export type Attributes = Readonly<Record<string, string>>;
export type Predicate = (attributes: Attributes) => boolean;

/**
 * A contact's cell, without its surrounding whitespace; '' when the contact has no such attribute. Own properties only: an
 * attribute named `constructor` or `__proto__` must not read the object's prototype.
 */
function cellOf(attributes: Attributes, name: string): string {
  return Object.hasOwn(attributes, name) ? (attributes[name] ?? '').trim() : '';
}

/**
 * The tree compiled once into closures, so a segment over a million contacts costs a few function calls per contact:
 * literals are classified (date, number, text) and lists made into sets here, never per contact.
 */
export function compileWhere(node: WhereNode): Predicate {
  switch (node.kind) {
    case 'or':
      return anyOf(node.operands.map(compileWhere));
    case 'and':
      return allOf(node.operands.map(compileWhere));
    case 'not': {
      const operand = compileWhere(node.operand);
      return (attributes) => !operand(attributes);
    }
    case 'equals': {
      const { attribute, value } = node;
      return node.operator === '='
        ? (attributes) => cellOf(attributes, attribute) === value
        : (attributes) => cellOf(attributes, attribute) !== value;
    }
    case 'order':
      return ordering(node.attribute, node.operator, node.value);
    case 'in': {
      const { attribute, negated } = node;
      const values = new Set(node.values);
      return (attributes) => values.has(cellOf(attributes, attribute)) !== negated;
    }
    case 'contains': {
      const { attribute } = node;
      const needle = node.value.toLowerCase();
      return (attributes) => cellOf(attributes, attribute).toLowerCase().includes(needle);
    }
    case 'empty': {
      const { attribute, negated } = node;
      return (attributes) => (cellOf(attributes, attribute) === '') !== negated;
    }
  }
}

function anyOf(predicates: readonly Predicate[]): Predicate {
  return (attributes) => {
    for (const predicate of predicates) if (predicate(attributes)) return true;
    return false;
  };
}

function allOf(predicates: readonly Predicate[]): Predicate {
  return (attributes) => {
    for (const predicate of predicates) if (!predicate(attributes)) return false;
    return true;
  };
}

/** `<`, `<=`, `>`, `>=` against one literal; an empty cell has no place in any order, so it satisfies none of them. */
function ordering(attribute: string, operator: '<' | '<=' | '>' | '>=', literal: string): Predicate {
  const order = orderAgainst(literal);
  const holds = {
    '<': (sign: number) => sign < 0,
    '<=': (sign: number) => sign <= 0,
    '>': (sign: number) => sign > 0,
    '>=': (sign: number) => sign >= 0,
  }[operator];
  return (attributes) => {
    const cell = cellOf(attributes, attribute);
    return cell !== '' && holds(order(cell));
  };
}
