/**
 * A small reader of Prometheus's text exposition format (version 0.0.4), for the metrics
 * tests: what a scraper would see, parsed without the code under test.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** `# TYPE name type` lines. */
  types: Map<string, string>;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/y;

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type !== null) types.set(type[1] ?? '', type[2] ?? '');
      continue;
    }
    const match = SAMPLE_LINE.exec(line);
    if (match === null) throw new Error(`not an exposition line: ${line}`);
    samples.push({ name: match[1] ?? '', labels: parseLabels(match[2] ?? '', line), value: parseValue(match[3] ?? '', line) });
  }
  return { samples, types };
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const at = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (match === null || LABEL.lastIndex === at) throw new Error(`bad labels in: ${line}`);
    labels[match[1] ?? ''] = (match[2] ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

function parseValue(text: string, line: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  // Case as Go's ParseFloat, which Prometheus uses: prom-client writes `Nan`.
  if (text.toLowerCase() === 'nan') return Number.NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`bad value in: ${line}`);
  return value;
}

/** Samples named `name` whose labels include `labels`. */
export function samplesOf(e: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample named `name` with these labels; undefined when there is none, an error when several match. */
export function valueOf(e: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samplesOf(e, name, labels);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** The sum over the samples named `name` with these labels (0 when none). */
export function sumOf(e: Exposition, name: string, labels: Record<string, string> = {}): number {
  return samplesOf(e, name, labels).reduce((sum, s) => sum + s.value, 0);
}

/** GET `${url}/metrics`, parsed; throws unless 200 with Prometheus's content type. */
export async function scrape(url: string): Promise<Exposition> {
  const response = await fetch(`${url}/metrics`);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${body}`);
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain; version=0.0.4')) throw new Error(`GET /metrics content-type ${type}`);
  return parseExposition(body);
}
