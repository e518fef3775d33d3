import { clear, el } from './dom.js';

/** `GET /api/v1/audiences/{name}` as the pages read it (the document's AudienceDetail). */
export interface AudienceDetailAnswer {
  name: string;
  contacts: number;
  columns: string[];
  filled: Record<string, number>;
  optedOut: number;
  withConsent: number;
  withUserId: number;
}

/** `PUT /api/v1/audiences/{name}` as the pages read it (the document's AudienceImport). */
export interface ImportAnswer {
  name: string;
  portfolio: string;
  read: number;
  added: number;
  updated: number;
  rejected: number;
  duplicates: number;
  contacts: number;
  columns: string[];
  rejects: { row: number; phone?: string; reason: string; detail: string }[];
  rejectsTotal: number;
  rejectsFile: string | null;
}

/** The API's path of an audience (or of one of its parts), in its portfolio. */
export function audienceApiPath(name: string, portfolio: string, part = ''): string {
  const query = portfolio === '' ? '' : `?portfolio=${encodeURIComponent(portfolio)}`;
  return `/api/v1/audiences/${encodeURIComponent(name)}${part}${query}`;
}

const n = (value: number): string => value.toLocaleString('en-US');

/** What an import did: its counts, and its first refused rows with their reasons. */
export function showImportOutcome(box: HTMLElement, answer: ImportAnswer): void {
  clear(box);
  const link = el('a', { href: `/audiences/${encodeURIComponent(answer.portfolio)}/${encodeURIComponent(answer.name)}` }, [answer.name]);
  box.appendChild(
    el('p', { class: 'done' }, [
      'Audience ',
      link,
      ` (portfolio ${answer.portfolio}): ${n(answer.contacts)} contacts. ${n(answer.read)} rows read, ${n(answer.added)} added, ` +
        `${n(answer.updated)} updated, ${n(answer.rejected)} rejected, ${n(answer.duplicates)} duplicates.`,
    ]),
  );
  if (answer.rejects.length > 0) {
    const more = answer.rejectsTotal > answer.rejects.length ? ` (the first ${answer.rejects.length} of ${n(answer.rejectsTotal)})` : '';
    box.appendChild(el('p', {}, [`Refused rows${more}; all of them are in REPORTS_DIR/${answer.rejectsFile ?? ''}:`]));
    box.appendChild(
      el(
        'ul',
        { class: 'problems' },
        answer.rejects.map((r) =>
          el('li', {}, [`row ${r.row}${r.phone ? ` (${r.phone})` : ''}: `, el('code', {}, [r.reason]), ` ${r.detail}`]),
        ),
      ),
    );
  }
  box.appendChild(el('p', {}, [el('a', { href: '/audiences' }, ['Show the list again'])]));
  box.hidden = false;
}
