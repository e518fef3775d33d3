import { GraphRejection } from '../graph-error.js';
import type { ParameterValue } from '../parameter-validation.js';

/**
 * Pairs sent values with the template's variables: by position for POSITIONAL templates,
 * by `parameter_name` for NAMED ones. Any surplus, gap or duplicate is 132000, Meta's
 * "Number of parameters does not match the expected number of params".
 */
export function matchVariables(
  where: string,
  variables: readonly string[],
  values: readonly ParameterValue[],
  named: boolean,
): Map<string, string> {
  const byName = new Map<string, string>();
  if (!named) {
    if (values.length !== variables.length) {
      throw new GraphRejection(132000, `${where}: expected ${variables.length} parameters, got ${values.length}`);
    }
    variables.forEach((variable, i) => byName.set(variable, values[i]?.text ?? ''));
    return byName;
  }
  for (const value of values) {
    const name = value.name ?? '';
    if (!variables.includes(name)) {
      throw new GraphRejection(132000, `${where}: unknown parameter_name ${name}; expected ${variables.join(', ') || 'no parameters'}`);
    }
    if (byName.has(name)) throw new GraphRejection(132000, `${where}: parameter_name ${name} is given twice`);
    byName.set(name, value.text ?? '');
  }
  const missing = variables.filter((v) => !byName.has(v));
  if (missing.length > 0) {
    throw new GraphRejection(
      132000,
      `${where}: expected ${variables.length} parameters, got ${values.length} (missing ${missing.join(', ')})`,
    );
  }
  return byName;
}
