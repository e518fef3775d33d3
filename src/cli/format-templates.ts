import { templateView, type TemplateListing, type TemplateView } from '../app/views/template-view.js';
import { printable } from '../text/operator-text.js';

/** `campaign templates list`'s table: what templatesJson (src/app/views/template-view.ts) gives, one template per line. */
export function templatesText(listing: TemplateListing): string {
  const { shown, hidden, all } = listing;
  const notShown = hidden > 0 ? ` (${hidden} in other statuses; --all shows them)` : '';
  if (shown.length === 0) return `No ${all ? '' : 'approved '}templates${notShown}`;
  const rows = [
    ['NAME', 'LANGUAGE', 'STATUS', 'CATEGORY', 'KIND', 'FORMAT', 'SLOTS'],
    ...shown.map((t) => {
      const v = templateView(t);
      // Names, categories and slots come from Meta (or a templates file): shown, never acted on by the terminal.
      return [v.name, v.language, v.status, v.category ?? '-', v.kind, v.parameterFormat, slotsText(v.slots)].map(printable);
    }),
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  const lines = rows.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  '),
  );
  const noun = shown.length === 1 ? 'template' : 'templates';
  lines.push('', `${shown.length} ${all ? '' : 'approved '}${noun}${notShown}`);
  if (shown.length > 0) lines.push('Map a slot with --param SLOT=COLUMN; a slot marked ? is optional, = names the slot it is filled from.');
  return lines.join('\n');
}

/** `body.1 body.2 button.0.payload? button.0.code=body.1`, or (none). */
function slotsText(slots: TemplateView['slots']): string {
  const text = slots.map((s) => (s.sameAs !== null ? `${s.name}=${s.sameAs}` : s.required ? s.name : `${s.name}?`)).join(' ');
  return text || '(none)';
}
