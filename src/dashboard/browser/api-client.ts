/** An answer of the HTTP API: its body parsed as JSON, or its text when it is not JSON. */
export interface ApiAnswer {
  status: number;
  ok: boolean;
  body: unknown;
}

/**
 * A request of a page to the HTTP API (/api/v1): the page's CSRF token in `X-CSRF-Token` (the
 * API takes a page's requests only with it), the browser's own basic auth, never a cached
 * answer. A refusal resolves like a success (the caller shows its problems); only a service
 * that does not answer rejects.
 */
export async function callApi(
  path: string,
  token: string,
  options: { method?: string; body?: BodyInit; json?: boolean } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-csrf-token': token };
  if (options.json === true) headers['content-type'] = 'application/json';
  const init: RequestInit = { method: options.method ?? 'GET', headers, credentials: 'same-origin', cache: 'no-store' };
  if (options.body !== undefined) init.body = options.body;
  const response = await fetch(path, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page): shown as text.
  }
  return { status: response.status, ok: response.ok, body };
}

/**
 * The list in an answer: the answer itself, or its `key` (or `data`) member. Its items are taken
 * as the API's document describes them (`T`): the pages read them defensively, not through a
 * schema, as no schema library is bundled for the browser.
 */
export function listOf<T>(body: unknown, key: string): T[] {
  if (Array.isArray(body)) return body as T[];
  if (body === null || typeof body !== 'object') return [];
  const record = body as Record<string, unknown>;
  const list = Array.isArray(record[key]) ? record[key] : record.data;
  return Array.isArray(list) ? (list as T[]) : [];
}
