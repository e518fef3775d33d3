/** One regular expression written in parts, so a long expected message stays within the line width: the parts' sources joined. */
export function pattern(...parts: RegExp[]): RegExp {
  return new RegExp(parts.map((part) => part.source).join(''), parts[0]?.flags);
}
