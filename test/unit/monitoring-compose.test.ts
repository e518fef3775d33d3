import { existsSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, readRepoFile, readYaml } from './monitoring-promql.js';

/**
 * docker-compose.yml's monitoring profile, checked by parsing (no Docker engine here):
 * Prometheus and Grafana only under `--profile monitoring`, every file they mount is in the
 * repo, ports on loopback only, and the paths inside the containers line up with the
 * configuration files that use them.
 */
interface Service {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  profiles?: string[];
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, unknown>;
}
const compose = readYaml('docker-compose.yml') as { services: Record<string, Service>; volumes?: Record<string, unknown> };
const service = (name: string): Service => {
  const found = compose.services[name];
  if (found === undefined) throw new Error(`no service ${name}`);
  return found;
};

/** A service's bind mounts: repo path (without ./) → path in the container. */
function binds(s: Service): { source: string; target: string }[] {
  return (s.volumes ?? [])
    .filter((v) => v.startsWith('./'))
    .map((v) => {
      const [source = '', target = ''] = v.split(':');
      return { source: posix.normalize(source), target };
    });
}

/** The repo file a path inside the container comes from, through the service's bind mounts; undefined when none covers it. */
function repoPathOf(s: Service, containerPath: string): string | undefined {
  for (const { source, target } of binds(s)) {
    if (containerPath === target) return source;
    if (containerPath.startsWith(`${target}/`)) return posix.join(source, containerPath.slice(target.length + 1));
  }
  return undefined;
}

describe('docker compose --profile monitoring', () => {
  it('adds prometheus and grafana, only under the monitoring profile; the other services stay in the default set', () => {
    const monitoring = Object.entries(compose.services)
      .filter(([, s]) => s.profiles?.includes('monitoring'))
      .map(([name]) => name);
    expect(monitoring.sort()).toEqual(['grafana', 'prometheus']);
    for (const name of ['redis', 'sandbox', 'worker', 'webhooks']) expect(service(name).profiles, name).toBeUndefined();
    for (const name of monitoring) {
      expect(service(name).profiles).toEqual(['monitoring']);
      // Pinned images, never `latest`.
      expect(service(name).image, name).toMatch(/^[\w./-]+:v?\d+\.\d+\.\d+$/);
    }
  });

  it('every file or folder the monitoring services mount exists in the repo, under monitoring/', () => {
    for (const name of ['prometheus', 'grafana']) {
      const mounts = binds(service(name));
      expect(mounts.length, name).toBeGreaterThan(0);
      for (const { source } of mounts) {
        expect(source, name).toMatch(/^monitoring\//);
        expect(existsSync(`${ROOT}${source}`), source).toBe(true);
      }
      // Named volumes for their data are declared.
      for (const v of (service(name).volumes ?? []).filter((v) => !v.startsWith('./')))
        expect(Object.keys(compose.volumes ?? {})).toContain(v.split(':')[0]);
    }
  });

  it('every published port of every service is on 127.0.0.1 only', () => {
    for (const [name, s] of Object.entries(compose.services))
      for (const port of s.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    expect(service('prometheus').ports).toEqual(['127.0.0.1:9090:9090']);
    expect(service('grafana').ports).toEqual(['127.0.0.1:3000:3000']);
  });

  it('prometheus reads its config and rules from the repo, and its scrape target is the webhooks service on the port it serves', () => {
    const prometheus = service('prometheus');
    const args = Array.isArray(prometheus.command) ? prometheus.command : [];
    const configPath = args.find((a) => a.startsWith('--config.file='))?.slice('--config.file='.length) ?? '/etc/prometheus/prometheus.yml';
    const configFile = repoPathOf(prometheus, configPath);
    expect(configFile).toBe('monitoring/prometheus/prometheus.yml');
    const config = readYaml(configFile ?? '') as { rule_files: string[]; scrape_configs: { static_configs: { targets: string[] }[] }[] };
    for (const rules of config.rule_files) {
      const file = repoPathOf(prometheus, rules);
      expect(file, rules).toBeDefined();
      expect(existsSync(`${ROOT}${file}`), rules).toBe(true);
    }
    const targets = config.scrape_configs.flatMap((c) => c.static_configs.flatMap((s) => s.targets));
    for (const target of targets) {
      const [host = '', port = ''] = target.split(':');
      const command = service(host).command;
      expect(command, target).toEqual(expect.arrayContaining(['serve', '--port', port]));
      expect(command, target).toEqual(expect.arrayContaining(['--host', '0.0.0.0']));
    }
  });

  it('grafana gets its provisioning and dashboards from the repo, and the paths inside line up', () => {
    const grafana = service('grafana');
    expect(grafana.depends_on).toHaveProperty('prometheus');
    const provisioning = repoPathOf(grafana, '/etc/grafana/provisioning');
    expect(provisioning).toBe('monitoring/grafana/provisioning');
    for (const kind of ['datasources', 'dashboards']) expect(statSync(`${ROOT}${provisioning}/${kind}`).isDirectory()).toBe(true);

    const providers = readYaml('monitoring/grafana/provisioning/dashboards/campaign-worker.yml') as {
      providers: { options: { path: string } }[];
    };
    for (const provider of providers.providers) {
      const folder = repoPathOf(grafana, provider.options.path);
      expect(folder, provider.options.path).toBe('monitoring/grafana/dashboards');
      expect(existsSync(`${ROOT}${folder}/campaign-worker.json`)).toBe(true);
    }
    const home = repoPathOf(grafana, grafana.environment?.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH ?? '');
    expect(home).toBe('monitoring/grafana/dashboards/campaign-worker.json');

    // The datasource's URL is the prometheus service on its port.
    const datasources = readYaml('monitoring/grafana/provisioning/datasources/prometheus.yml') as { datasources: { url: string }[] };
    const url = new URL(datasources.datasources[0]?.url ?? '');
    expect(compose.services[url.hostname], url.hostname).toBeDefined();
    expect(service(url.hostname).ports?.some((p) => p.endsWith(`:${url.port}`))).toBe(true);
  });

  it('the compose file says how to start it', () => {
    expect(readRepoFile('docker-compose.yml')).toMatch(/docker compose --profile monitoring up/);
  });
});
