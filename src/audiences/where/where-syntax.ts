/** The syntax tree of a `--where` expression: what the parser builds and the evaluator compiles. */

/** The operators that order a cell against a value (as dates, numbers or text: src/audiences/where/where-values.ts). */
export type OrderingOperator = '<' | '<=' | '>' | '>=';
export type EqualityOperator = '=' | '!=';

export type WhereNode =
  | { readonly kind: 'or' | 'and'; readonly operands: readonly WhereNode[] }
  | { readonly kind: 'not'; readonly operand: WhereNode }
  | { readonly kind: 'equals'; readonly attribute: string; readonly operator: EqualityOperator; readonly value: string }
  | { readonly kind: 'order'; readonly attribute: string; readonly operator: OrderingOperator; readonly value: string }
  | { readonly kind: 'in'; readonly attribute: string; readonly values: readonly string[]; readonly negated: boolean }
  | { readonly kind: 'contains'; readonly attribute: string; readonly value: string }
  | { readonly kind: 'empty'; readonly attribute: string; readonly negated: boolean };

/** The attribute names a tree reads, each once, in the order they first appear. */
export function attributesOf(node: WhereNode): string[] {
  const names = new Set<string>();
  const visit = (current: WhereNode): void => {
    if ('operands' in current) current.operands.forEach(visit);
    else if ('operand' in current) visit(current.operand);
    else names.add(current.attribute);
  };
  visit(node);
  return [...names];
}
