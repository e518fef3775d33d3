import { clear } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
/** The longest bar, a row's height, the gap around a label, the widest label column before labels are shortened. */
const BAR = 520;
const ROW = 26;
const GAP = 8;
const LABEL_MAX = 360;

/** A bar: its label, its rows (its length against the longest), its color, and its figures as `data-*` attributes (for tests and tools). */
export interface BarItem {
  label: string;
  rows: number;
  color: string;
  /** Said after the figure, e.g. a share: ` (40%)`. */
  note?: string;
  data: Record<string, string | number>;
}

/** A chart with nothing to show says so instead of drawing an empty axis. */
export function nothing(el: HTMLElement, what: string): void {
  clear(el);
  const p = document.createElement('p');
  p.className = 'empty';
  p.textContent = `Nothing yet: ${what}`;
  el.appendChild(p);
}

function node(name: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVG, name);
  for (const [a, value] of Object.entries(attrs)) el.setAttribute(a, String(value));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A label no wider than LABEL_MAX: shortened with an ellipsis when it is (its bar's tooltip has it whole). */
function fit(label: SVGTextElement): number {
  let text = label.textContent ?? '';
  while (label.getComputedTextLength() > LABEL_MAX && text.length > 4) {
    text = text.slice(0, -1);
    label.textContent = `${text}…`;
  }
  return label.getComputedTextLength();
}

/**
 * Horizontal bars, a bar's length by its rows against the longest, laid out once drawn: the
 * labels are measured and the label column sized to the longest, so no label is cut or far off.
 */
export function bars(el: HTMLElement, items: readonly BarItem[], cssClass: string, empty: string): void {
  if (items.every((i) => i.rows === 0)) return nothing(el, empty);
  clear(el);
  const most = Math.max(...items.map((i) => i.rows), 1);
  const svg = node('svg', { height: items.length * ROW + 4, role: 'img', class: cssClass });
  el.appendChild(svg);
  const drawn = items.map((item, n) => {
    const g = node('g', { class: 'bar', transform: `translate(0,${n * ROW + 2})` });
    for (const [k, value] of Object.entries(item.data)) g.setAttribute(`data-${k}`, String(value));
    g.appendChild(node('title', {}, `${item.label}: ${item.rows.toLocaleString('en-US')}`));
    const label = node('text', { class: 'label', x: 0, y: 16, 'text-anchor': 'end' }, item.label) as SVGTextElement;
    g.appendChild(label);
    svg.appendChild(g);
    return { g, label, item };
  });
  const column = Math.ceil(Math.max(...drawn.map((d) => fit(d.label)))) + 2 * GAP;
  let right = column;
  for (const d of drawn) {
    const length = d.item.rows > 0 ? Math.max(2, Math.round((BAR * d.item.rows) / most)) : 0;
    d.label.setAttribute('x', String(column - GAP));
    d.g.appendChild(node('rect', { x: column, y: 3, width: length, height: ROW - 8, rx: 3, fill: d.item.color }));
    const figure = node(
      'text',
      { x: column + length + 6, y: 16, class: 'n' },
      d.item.rows.toLocaleString('en-US') + (d.item.note ?? ''),
    ) as SVGTextElement;
    d.g.appendChild(figure);
    right = Math.max(right, column + length + 6 + figure.getComputedTextLength());
  }
  svg.setAttribute('width', String(Math.ceil(right) + GAP));
}
