import { templateView, type TemplateListing } from '../app/views/template-view.js';
import { printable } from '../text/operator-text.js';

/** `campaign templates list`'s table: what templatesJson (src/app/views/template-view.ts) gives, one template per line. */
export function templatesText(listing: TemplateListing): string {
  const { shown, hidden, all } = listing;
  const notShown = hidden > 0 ? ` (${hidden} in other statuses; --all shows them)` : '';
  if (shown.length === 0) return `No ${all ? '' : 'approved '}templates${notShown}`;
  const rows = [
    ['NAME', 'LANGUAGE', 'STATUS', 'CATEGORY', 'FORMAT', 'VARIABLES'],
    ...shown.map((t) => {
      const v = templateView(t);
      // Names, categories and variables come from Meta (or a templates file): shown, never acted on by the terminal.
      return [v.name, v.language, v.status, v.category ?? '-', v.parameterFormat, v.variables.join('; ') || '(none)'].map(printable);
    }),
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  const lines = rows.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  '),
  );
  const noun = shown.length === 1 ? 'template' : 'templates';
  lines.push('', `${shown.length} ${all ? '' : 'approved '}${noun}${notShown}`);
  return lines.join('\n');
}
