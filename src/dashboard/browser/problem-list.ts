import type { ProblemDocument } from './api-answers.js';
import { clear, el } from './dom.js';

type Problem = NonNullable<ProblemDocument['problems']>[number];

function where(p: Problem): string {
  const parts: string[] = [];
  if (p.row !== undefined) parts.push(`row ${p.row}`);
  if (p.column !== undefined) parts.push(`column ${p.column}`);
  if (p.field !== undefined) parts.push(`field ${p.field}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/** A refusal of the API: its detail and every problem it lists, each with where it is; a body not JSON is shown as text. */
export function showProblems(container: HTMLElement, status: number, body: unknown): void {
  clear(container);
  const doc: ProblemDocument = body !== null && typeof body === 'object' ? body : { detail: typeof body === 'string' ? body : '' };
  const list = Array.isArray(doc.problems) ? doc.problems : [];
  const items = list.map((p) =>
    el('li', { 'data-code': p.code || '' }, [el('code', {}, [p.code || '']), ' ', (p.detail || '') + where(p)]),
  );
  let detail = doc.detail || doc.title || 'the service refused the request';
  // The list says each problem: the detail's first line is enough above it.
  if (items.length > 0) detail = detail.split('\n')[0] ?? detail;
  const title = `${doc.code ? `${doc.code}: ` : ''}${detail} (HTTP ${status})`;
  container.appendChild(
    el('div', { class: 'error', role: 'alert' }, [
      el('p', { class: 'problem-title' }, [title]),
      items.length === 0 ? null : el('ul', { class: 'problems' }, items),
    ]),
  );
}
