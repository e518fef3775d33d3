import { beforeAll, describe, expect, it } from 'vitest';
import { alertRules, exposedSeries, readYaml, ruleQueries, unknownMetrics, type AlertRule } from './monitoring-promql.js';

/**
 * The example Prometheus configuration (monitoring/prometheus): the alert rules the issue
 * asks for, each naming only series the service exposes, and a scrape of the compose
 * service that runs `campaign serve`.
 */
describe('the Prometheus alert rules', () => {
  let known: Set<string>;
  let rules: AlertRule[];

  beforeAll(async () => {
    known = await exposedSeries();
    rules = alertRules(readYaml('monitoring/prometheus/alerts.yml'));
  });

  const rule = (name: string): AlertRule => {
    const found = rules.find((r) => r.alert === name);
    if (found === undefined) throw new Error(`no alert ${name}`);
    return found;
  };

  it('every rule is an alert with an expression, a severity and a summary, and a valid `for`', () => {
    expect(rules.length).toBeGreaterThanOrEqual(5);
    for (const r of rules) {
      expect(r.alert, JSON.stringify(r)).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(r.expr?.trim(), r.alert).not.toBe('');
      expect(['critical', 'warning'], r.alert).toContain(r.labels?.severity);
      expect(r.annotations?.summary, r.alert).toBeTruthy();
      if (r.for !== undefined) expect(r.for, r.alert).toMatch(/^\d+[smh]$/);
    }
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  it("every expression names only series the service exposes (or Prometheus's own `up`)", () => {
    expect(unknownMetrics(ruleQueries(rules), known)).toEqual([]);
  });

  it('the checker catches a misspelt metric in a rule', () => {
    const broken = rules.map((r) =>
      r.alert === 'WebhookLagHigh' ? { ...r, expr: (r.expr ?? '').replace('cw_webhook_lag_seconds_bucket', 'cw_webhook_lag_bucket') } : r,
    );
    expect(unknownMetrics(ruleQueries(broken), known)).toEqual(['rule WebhookLagHigh: cw_webhook_lag_bucket']);
  });

  it('has the rules the issue asks for: error spike, stalled queue, webhook lag over 60 s, token errors', () => {
    expect(rule('SendErrorSpike').expr).toMatch(/cw_sends_total\{result!="accepted"\}/);
    const stalled = rule('SendQueueStalled');
    expect(stalled.expr).toMatch(/cw_queue_jobs\{state="waiting"\}[^]*> 0[^]*and on \(phone_number_id\)[^]*cw_send_rate\) == 0/);
    expect(stalled.for).toBe('5m');
    expect(rule('WebhookLagHigh').expr).toBe('histogram_quantile(0.99, sum by (le) (rate(cw_webhook_lag_seconds_bucket[5m]))) > 60');
    // 0 (AuthException) and 190 (token expired or invalid): PromQL regexes match whole values.
    expect(rule('CloudApiTokenError').expr).toMatch(/cw_sends_total\{result=~"0\|190"\}/);
  });

  it("fires on any account error Meta reports by webhook (a change's errors[]), per number and code", () => {
    const account = rule('CloudApiAccountError');
    expect(account.expr).toBe('sum by (phone_number_id, code) (increase(cw_account_errors_total[10m])) > 0');
    expect(account.labels?.severity).toBe('critical');
  });
});

describe('the Prometheus configuration', () => {
  it('loads the alert rules and scrapes the webhooks service (campaign serve) on its port', () => {
    const config = readYaml('monitoring/prometheus/prometheus.yml') as {
      rule_files: string[];
      scrape_configs: { job_name: string; metrics_path?: string; static_configs: { targets: string[] }[] }[];
    };
    expect(config.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
    expect(config.scrape_configs).toHaveLength(1);
    const [job] = config.scrape_configs;
    expect(job?.job_name).toBe('campaign-worker');
    expect(job?.metrics_path ?? '/metrics').toBe('/metrics');
    expect(job?.static_configs.flatMap((s) => s.targets)).toEqual(['webhooks:8080']);
    // CampaignServiceDown watches this job's `up`.
    expect(alertRules(readYaml('monitoring/prometheus/alerts.yml')).find((r) => r.alert === 'CampaignServiceDown')?.expr).toBe(
      'up{job="campaign-worker"} == 0',
    );
  });
});
