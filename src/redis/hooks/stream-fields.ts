/** A stream entry's field list (`[name, value, name, value, …]`, as XRANGE answers it) as a record. */
export function streamFields(list: readonly string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) fields[list[i] as string] = list[i + 1] as string;
  return fields;
}
