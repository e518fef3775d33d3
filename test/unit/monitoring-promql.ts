import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { vi } from 'vitest';
import { parse } from 'yaml';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';

/**
 * What the monitoring tests check queries against: the series `campaign serve`'s /metrics
 * exposes (taken from the service's own prom-client registry, not a list kept by hand), and
 * the metric names a PromQL expression selects.
 */

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const readRepoFile = (path: string): string => readFileSync(`${ROOT}${path}`, 'utf8');
export const readYaml = (path: string): unknown => parse(readRepoFile(path));

/** Series Prometheus makes itself for every target (the alert rules use `up` to see the service down). */
const PROMETHEUS_SERIES = ['up'];

/**
 * Every series name a scrape of the service can show: the registry createServiceMetrics builds
 * (prom-client's default metrics and the cw_* metrics), each metric expanded as Prometheus
 * stores it: a histogram as `_bucket`, `_sum` and `_count` (not its bare name), a summary as
 * itself with `_sum` and `_count`. The registry is caught as the metrics register on it; no
 * scrape is made, so no Redis is needed.
 */
export async function exposedSeries(): Promise<Set<string>> {
  const registries = new Set<Registry>();
  const spy = vi.spyOn(Registry.prototype, 'registerMetric');
  const metrics = createServiceMetrics({
    redis: {} as Redis,
    prefix: 'monitoring-test',
    retentionMs: 60_000,
    sendRate: () => 80,
    ledger: {
      getCampaign: () => Promise.resolve(undefined),
      laneBacklogs: () => Promise.resolve([]),
      campaignCounters: () => Promise.resolve([]),
    },
  });
  for (const context of spy.mock.contexts) registries.add(context as Registry);
  spy.mockRestore();
  await metrics.close();
  const series = new Set(PROMETHEUS_SERIES);
  for (const registry of registries) {
    for (const metric of await registry.getMetricsAsJSON()) {
      const type = String(metric.type);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) series.add(`${metric.name}${suffix}`);
      else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) series.add(`${metric.name}${suffix}`);
      else series.add(metric.name);
    }
  }
  return series;
}

/** Words of PromQL that are not series names when they stand alone. */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
  'start',
  'end',
]);

/**
 * The metric names a PromQL expression selects. Grafana's variables (`$x`, `${x}`, `[[x]]`)
 * stand in as a number first; then strings, label matchers, ranges and `by (…)`-style
 * groupings are dropped, and what is left that is a name not called as a function and not
 * a keyword is a series. `{__name__="x"}` names x.
 */
export function metricNames(expr: string): string[] {
  const names = new Set<string>();
  let text = expr.replace(/\$\{[^}]*\}|\$\w+|\[\[[^\]]*\]\]/g, '1');
  for (const match of text.matchAll(/__name__\s*=\s*"([^"]*)"/g)) names.add(match[1] ?? '');
  text = text
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/#[^\n]*/g, ' ');
  for (const match of text.matchAll(/(?<![\w.])[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const name = match[0];
    const after = text.slice((match.index ?? 0) + name.length).trimStart();
    if (after.startsWith('(') || KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names];
}

export interface Query {
  /** Where it is, for the failure message: a panel and its refId, a variable, an alert. */
  where: string;
  expr: string;
}

/** `where: names` for every query that selects a series the service does not expose; empty when all exist. */
export function unknownMetrics(queries: readonly Query[], known: ReadonlySet<string>): string[] {
  return queries.flatMap(({ where, expr }) => {
    const missing = metricNames(expr).filter((name) => !known.has(name));
    return missing.length === 0 ? [] : [`${where}: ${missing.join(', ')}`];
  });
}

interface Target {
  refId?: string;
  expr?: string;
}
export interface Panel {
  id?: number;
  type?: string;
  title?: string;
  datasource?: { type?: string; uid?: string };
  gridPos?: { h: number; w: number; x: number; y: number };
  targets?: Target[];
  panels?: Panel[];
}
export interface Dashboard {
  uid?: string;
  title?: string;
  schemaVersion?: number;
  panels?: Panel[];
  templating?: { list?: { name: string; type: string; query?: unknown; definition?: string; current?: { value?: unknown } }[] };
}

/** Every panel, rows' nested panels included. */
export function allPanels(dashboard: Dashboard): Panel[] {
  return (dashboard.panels ?? []).flatMap((p) => [p, ...(p.panels ?? [])]);
}

/**
 * Every PromQL query of a dashboard: its panels' targets, and its query variables
 * (`label_values(metric, label)` selects metric; `query_result(expr)` runs expr).
 */
export function dashboardQueries(dashboard: Dashboard): Query[] {
  const queries: Query[] = [];
  for (const panel of allPanels(dashboard)) {
    for (const target of panel.targets ?? [])
      queries.push({ where: `panel "${panel.title ?? panel.id}" ${target.refId ?? ''}`, expr: target.expr ?? '' });
  }
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : ((variable.query as { query?: string } | undefined)?.query ?? '');
    const labelValues = /^\s*label_values\(\s*(.*?)\s*(?:,\s*\w+\s*)?\)\s*$/s.exec(query);
    const result = /^\s*query_result\((.*)\)\s*$/s.exec(query);
    const expr = labelValues?.[1] ?? result?.[1] ?? query;
    queries.push({ where: `variable ${variable.name}`, expr });
  }
  return queries;
}

export interface AlertRule {
  alert?: string;
  record?: string;
  expr?: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function alertRules(file: unknown): AlertRule[] {
  return ((file as { groups?: { rules?: AlertRule[] }[] }).groups ?? []).flatMap((g) => g.rules ?? []);
}

export function ruleQueries(rules: readonly AlertRule[]): Query[] {
  return rules.map((r) => ({ where: `rule ${r.alert ?? r.record ?? '?'}`, expr: r.expr ?? '' }));
}
