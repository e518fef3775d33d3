/** JSON text read, or undefined when it is not JSON (an answer or a stored value that may be anything). */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
