import { beforeAll, describe, expect, it } from 'vitest';
import {
  allPanels,
  dashboardQueries,
  exposedSeries,
  metricNames,
  readRepoFile,
  readYaml,
  unknownMetrics,
  type Dashboard,
} from './monitoring-promql.js';

/**
 * The Grafana dashboard kept in the repo (monitoring/grafana/dashboards/campaign-worker.json):
 * it loads, it has the panels an operator needs, and every query names only series that
 * `campaign serve`'s /metrics exposes (from the service's own registry), so a renamed
 * metric breaks this test rather than a panel at 3 a.m.
 */
const DASHBOARD = 'monitoring/grafana/dashboards/campaign-worker.json';

describe('the Grafana dashboard', () => {
  let known: Set<string>;
  let dashboard: Dashboard;

  beforeAll(async () => {
    known = await exposedSeries();
    dashboard = JSON.parse(readRepoFile(DASHBOARD)) as Dashboard;
  });

  it('the service registry gives the ten cw_* metrics (histograms as _bucket, _sum, _count) and the process metrics', () => {
    const cw = [...known].filter((name) => name.startsWith('cw_')).sort();
    expect(cw).toEqual(
      [
        'cw_account_errors_total',
        'cw_billable_messages_total',
        'cw_campaign_eta_seconds',
        'cw_campaign_rows',
        'cw_dashboard_login_refusals_total',
        'cw_queue_jobs',
        'cw_send_latency_seconds_bucket',
        'cw_send_latency_seconds_count',
        'cw_send_latency_seconds_sum',
        'cw_send_rate',
        'cw_sends_total',
        'cw_webhook_events_total',
        'cw_webhook_inbox_entries',
        'cw_webhook_inbox_full_total',
        'cw_webhook_lag_seconds_bucket',
        'cw_webhook_lag_seconds_count',
        'cw_webhook_lag_seconds_sum',
        'cw_webhook_replays_dropped_total',
      ].sort(),
    );
    expect(known.has('process_cpu_seconds_total')).toBe(true);
    expect(known.has('cw_webhook_lag_seconds')).toBe(false);
  });

  it('loads as a Grafana JSON model with panels, a recent schemaVersion, and the Prometheus datasource by uid', () => {
    expect(dashboard).toMatchObject({ uid: 'campaign-worker', title: 'campaign-worker' });
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    const panels = allPanels(dashboard).filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThanOrEqual(8);
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: 'cw-prometheus' });
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
    }
    const ids = allPanels(dashboard).map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('its panels do not overlap on the 24-column grid', () => {
    const boxes = allPanels(dashboard).map((p) => ({ title: p.title, ...(p.gridPos ?? { h: 0, w: 0, x: 0, y: 0 }) }));
    for (const box of boxes) expect(box.x + box.w, box.title).toBeLessThanOrEqual(24);
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1)) {
        const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
        expect(overlap, `${a.title} / ${b.title}`).toBe(false);
      }
    }
  });

  it('every query in panels and variables names only series the service exposes', () => {
    const queries = dashboardQueries(dashboard);
    expect(queries.length).toBeGreaterThan(20);
    // Each selects something (but the SEND_RATE line, a constant).
    for (const q of queries) if (q.expr !== 'vector($send_rate)') expect(metricNames(q.expr), q.where).not.toEqual([]);
    expect(unknownMetrics(queries, known)).toEqual([]);
    // Every cw_* metric is shown somewhere.
    const used = new Set(queries.flatMap((q) => metricNames(q.expr)));
    for (const name of known)
      if (name.startsWith('cw_') && !name.endsWith('_sum') && !name.endsWith('_count')) expect(used, name).toContain(name);
  });

  it('has the panels the issue asks for: rate against the limit, queue depth, errors by code, the funnel, webhook lag', () => {
    const exprs = dashboardQueries(dashboard).map((q) => q.expr);
    const some = (pattern: RegExp) => exprs.some((e) => pattern.test(e));
    expect(some(/^cw_send_rate\{phone_number_id=~"\$phone_number_id"\}$/)).toBe(true);
    expect(some(/vector\(\$send_rate\)/)).toBe(true);
    expect(some(/cw_queue_jobs/)).toBe(true);
    expect(some(/sum by \(result\) \(rate\(cw_sends_total\{result!="accepted"/)).toBe(true);
    for (const status of ['sent', 'delivered', 'read']) expect(some(new RegExp(`cw_campaign_rows\\{status="${status}"`))).toBe(true);
    expect(some(/histogram_quantile\(0\.99, sum by \(le\) \(rate\(cw_webhook_lag_seconds_bucket\[/)).toBe(true);
    // SEND_RATE is the workers' setting, not a metric: a variable, 80 unless the operator sets it.
    const sendRate = dashboard.templating?.list?.find((v) => v.name === 'send_rate');
    expect(sendRate).toMatchObject({ type: 'textbox', query: '80', current: { value: '80' } });
  });

  it('the checker catches a misspelt metric, in a panel and in a variable, and reads PromQL rightly', () => {
    const broken = structuredClone(dashboard);
    const panel = allPanels(broken).find((p) => p.targets?.some((t) => t.expr?.includes('cw_sends_total')));
    const target = panel?.targets?.find((t) => t.expr?.includes('cw_sends_total'));
    if (target?.expr === undefined) throw new Error('no cw_sends_total query');
    target.expr = target.expr.replace('cw_sends_total', 'cw_send_total');
    const variable = broken.templating?.list?.find((v) => v.name === 'phone_number_id');
    if (variable === undefined) throw new Error('no phone_number_id variable');
    variable.query = { query: 'label_values(cw_sendrate, phone_number_id)' };
    expect(unknownMetrics(dashboardQueries(broken), known)).toEqual([
      `panel "${panel?.title}" ${target.refId}: cw_send_total`,
      'variable phone_number_id: cw_sendrate',
    ]);

    // A histogram's bare name is no series; a label value, a function, a grouping, a number or a duration is no metric.
    expect(unknownMetrics([{ where: 'q', expr: 'rate(cw_webhook_lag_seconds[5m])' }], known)).toEqual(['q: cw_webhook_lag_seconds']);
    expect(
      metricNames(
        'sum by (phone_number_id, result) (increase(cw_sends_total{result=~"0|190", job="campaign_worker"}[10m] ' +
          'offset 5m)) / on (phone_number_id) group_left max without (le) (cw_send_rate) > 1e-3 and ' +
          'vector($send_rate) or up{__name__="up"} unless {__name__="cw_queue_jobs"} > bool 0',
      ).sort(),
    ).toEqual(['cw_queue_jobs', 'cw_send_rate', 'cw_sends_total', 'up']);
  });
});

describe('the Grafana provisioning', () => {
  it('the datasource is Prometheus at the compose service, with the uid the dashboard uses', () => {
    const file = readYaml('monitoring/grafana/provisioning/datasources/prometheus.yml') as {
      apiVersion: number;
      datasources: Record<string, unknown>[];
    };
    expect(file.apiVersion).toBe(1);
    expect(file.datasources).toEqual([
      expect.objectContaining({ uid: 'cw-prometheus', type: 'prometheus', url: 'http://prometheus:9090', isDefault: true }),
    ]);
  });

  it('the dashboard provider loads files from the folder the dashboard is mounted at', () => {
    const file = readYaml('monitoring/grafana/provisioning/dashboards/campaign-worker.yml') as {
      apiVersion: number;
      providers: { type: string; options: { path: string } }[];
    };
    expect(file.apiVersion).toBe(1);
    expect(file.providers).toEqual([expect.objectContaining({ type: 'file', options: { path: '/etc/grafana/dashboards' } })]);
  });
});
