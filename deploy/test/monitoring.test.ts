/**
 * What reads the metrics in production (docs/slos.md, docs/deployment.md "Metrics"): the prod
 * overlay, rendered as an operator applies it, carries the monitoring component's PodMonitor,
 * PrometheusRules and Grafana dashboards; every expression parses with Prometheus's own PromQL
 * grammar, every alert has a severity and a runbook in docs/runbooks/, every SLO pages on a fast
 * burn and opens a ticket on a slow one, every metric a query names is documented, and the
 * PodMonitor scrapes every Deployment. That every such metric is served by a running process is
 * shown on the real processes (gateway/test/observability.test.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  metricNamesOf,
  monitoringQueries,
  rulesOf,
  SERIES_FROM_ELSEWHERE,
  type AlertRule,
  type GrafanaDashboard,
  type PrometheusRuleObject,
  type RecordingRule,
} from '@billing/testing';
import {
  byKind,
  K8S,
  kubectlAvailable,
  REPOSITORY,
  renderOverlay,
  selects,
  type KubeObject,
} from './support/manifests';

const describeWithKubectl = kubectlAvailable() ? describe : describe.skip;
const RUNBOOKS = path.join(REPOSITORY, 'docs/runbooks');

describeWithKubectl('monitoring in the rendered prod overlay', () => {
  let objects: KubeObject[];
  let ruleObjects: PrometheusRuleObject[];
  let alerts: AlertRule[];
  let records: RecordingRule[];
  let dashboards: Map<string, GrafanaDashboard>;

  beforeAll(() => {
    objects = renderOverlay(path.join(K8S, 'overlays/prod'));
    ruleObjects = byKind(objects, 'PrometheusRule') as unknown as PrometheusRuleObject[];
    const rules = rulesOf(ruleObjects);
    alerts = rules.filter((rule): rule is AlertRule => 'alert' in rule);
    records = rules.filter((rule): rule is RecordingRule => 'record' in rule);
    dashboards = new Map(
      byKind(objects, 'ConfigMap')
        .filter((map) => map.metadata.labels?.grafana_dashboard === '1')
        .flatMap((map) =>
          Object.entries(map.data as Record<string, string>).map(
            ([file, text]) => [file, JSON.parse(text) as GrafanaDashboard] as const,
          ),
        ),
    );
  });

  it('has the PrometheusRules, the PodMonitor and the dashboards, in the namespace of the platform', () => {
    expect(ruleObjects.map((o) => o.metadata.name).sort()).toEqual([
      'billing-platform-alerts',
      'billing-platform-slos',
    ]);
    expect(byKind(objects, 'PodMonitor').map((o) => o.metadata.name)).toEqual(['billing-platform']);
    expect([...dashboards.keys()].sort()).toEqual([
      'billing-dependencies.json',
      'billing-overview.json',
      'billing-slos.json',
    ]);
    for (const object of [...byKind(objects, 'PrometheusRule'), ...byKind(objects, 'PodMonitor')]) {
      expect(object.metadata.namespace).toBe('billing');
      expect(object.metadata.labels?.['app.kubernetes.io/part-of']).toBe('billing-platform');
    }
  });

  it('parses every rule and panel expression with the PromQL grammar, each selecting some series', () => {
    const queries = monitoringQueries(ruleObjects, dashboards);
    expect(queries.length).toBeGreaterThan(90);
    const problems: string[] = [];
    for (const { source, expr } of queries) {
      try {
        // vector(<objective>) records an SLO's objective: the one expression that selects nothing.
        if (metricNamesOf(expr).length === 0 && !/^vector\([0-9.]+\)$/.test(expr.trim())) {
          problems.push(`${source}: selects no series`);
        }
      } catch (err) {
        problems.push(`${source}: ${(err as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
    // The parser refuses what is not PromQL.
    expect(() => metricNamesOf('sum(rate(http_server_requests_total[5m])')).toThrow(/syntax error/);
    expect(() => metricNamesOf('rate(http_server_requests_total[5m]) >')).toThrow(/syntax error/);
  });

  it('gives every alert a severity, a summary and a runbook in docs/runbooks/ named after it, and every runbook an alert', () => {
    expect(alerts.length).toBeGreaterThan(15);
    const problems: string[] = [];
    for (const rule of alerts) {
      if (!['critical', 'warning'].includes(rule.labels?.severity ?? '')) problems.push(`${rule.alert}: severity`);
      if (!rule.annotations?.summary) problems.push(`${rule.alert}: summary`);
      const url = rule.annotations?.runbook_url ?? '';
      if (!url.endsWith(`/docs/runbooks/${rule.alert}.md`)) problems.push(`${rule.alert}: runbook_url ${url}`);
      else if (!existsSync(path.join(RUNBOOKS, `${rule.alert}.md`))) problems.push(`${rule.alert}: no runbook file`);
    }
    expect(problems).toEqual([]);
    const runbooks = readdirSync(RUNBOOKS).filter((file) => file.endsWith('.md') && file !== 'README.md');
    expect(runbooks.sort()).toEqual([...new Set(alerts.map((rule) => `${rule.alert}.md`))].sort());
    // A runbook says what the alert means, how to check it and how to fix it.
    for (const file of runbooks) {
      const text = readFileSync(path.join(RUNBOOKS, file), 'utf8');
      expect([file, /^## Meaning/m.test(text), /^## Check/m.test(text), /^## Fix/m.test(text)]).toEqual([
        file,
        true,
        true,
        true,
      ]);
    }
  });

  it('pages on a fast burn and tickets a slow burn of every SLO, over the recorded windows of docs/slos.md', () => {
    const slos = [...new Set(records.filter((r) => r.record === 'slo:objective:ratio').map((r) => r.labels!.slo))];
    expect(slos.sort()).toEqual(['checkout-availability', 'checkout-latency', 'renewal-charges', 'webhook-delivery']);
    const recorded = new Set(records.map((r) => r.record));
    const sloDoc = readFileSync(path.join(REPOSITORY, 'docs/slos.md'), 'utf8');
    for (const slo of slos) {
      for (const window of ['5m', '30m', '1h', '2h', '6h', '1d', '3d', '30d']) {
        expect([
          slo,
          window,
          records.some((r) => r.record === `slo:sli_error:ratio_rate${window}` && r.labels?.slo === slo),
        ]).toEqual([slo, window, true]);
      }
      const burns = alerts.filter((rule) => rule.labels?.slo === slo);
      expect(burns.map((rule) => rule.labels!.severity).sort()).toEqual(['critical', 'warning']);
      const page = burns.find((rule) => rule.labels!.severity === 'critical')!.expr;
      const ticket = burns.find((rule) => rule.labels!.severity === 'warning')!.expr;
      // The SRE workbook's pairs: 14.4x over 1h and 5m, 6x over 6h and 30m; 3x over 1d and 2h, 1x over 3d and 6h.
      for (const [factor, long, short] of [
        ['14.4', '1h', '5m'],
        ['6', '6h', '30m'],
      ]) {
        expect(page).toContain(`ratio_rate${long}{slo="${slo}"} > (${factor} *`);
        expect(page).toContain(`ratio_rate${short}{slo="${slo}"} > (${factor} *`);
      }
      for (const [factor, long, short] of [
        ['3', '1d', '2h'],
        ['1', '3d', '6h'],
      ]) {
        expect(ticket).toContain(`ratio_rate${long}{slo="${slo}"} > (${factor} *`);
        expect(ticket).toContain(`ratio_rate${short}{slo="${slo}"} > (${factor} *`);
      }
      expect([slo, sloDoc.includes(`\`${slo}\``)]).toEqual([slo, true]);
    }
    // Every recorded series a rule or panel uses is recorded by some rule.
    const used = monitoringQueries(ruleObjects, dashboards).flatMap(({ source, expr }) =>
      metricNamesOf(expr)
        .filter((name) => name.includes(':') && !recorded.has(name))
        .map((name) => `${source}: ${name}`),
    );
    expect(used).toEqual([]);
  });

  it('names only metrics that docs/deployment.md documents, or that Prometheus and kube-state-metrics serve', () => {
    const metricsSection = readFileSync(path.join(REPOSITORY, 'docs/deployment.md'), 'utf8').split('## Metrics')[1];
    const documented = (name: string) => {
      const base = name.replace(/_(bucket|count|sum)$/, '');
      return [name, base].some((n) => metricsSection.includes(`\`${n}\``)) || /^(process|nodejs)_/.test(name);
    };
    const undocumented = monitoringQueries(ruleObjects, dashboards).flatMap(({ source, expr }) =>
      metricNamesOf(expr)
        .filter((name) => !name.includes(':') && !(name in SERIES_FROM_ELSEWHERE) && !documented(name))
        .map((name) => `${source}: ${name}`),
    );
    expect(undocumented).toEqual([]);
  });

  it("scrapes every Deployment's pods on their port named as the PodMonitor's endpoints", () => {
    const [monitor] = byKind(objects, 'PodMonitor');
    const ports: string[] = monitor.spec.podMetricsEndpoints.map((endpoint: { port: string }) => endpoint.port);
    expect(ports).toEqual(['metrics']);
    const deployments = byKind(objects, 'Deployment');
    expect(deployments.length).toBe(10);
    for (const deployment of deployments) {
      const labels = deployment.spec.template.metadata.labels as Record<string, string>;
      expect([deployment.metadata.name, selects(monitor.spec.selector, labels)]).toEqual([
        deployment.metadata.name,
        true,
      ]);
      const named = (deployment.spec.template.spec.containers as KubeObject[]).flatMap((c) =>
        ((c.ports ?? []) as { name?: string; containerPort: number }[]).filter((p) => p.name === 'metrics'),
      );
      expect([deployment.metadata.name, named.map((p) => p.containerPort)]).toEqual([deployment.metadata.name, [9464]]);
    }
    // Prometheus (namespace monitoring) is let in on that port.
    const scrape = byKind(objects, 'NetworkPolicy').find((policy) => policy.metadata.name === 'allow-metrics-scrape');
    expect(JSON.stringify(scrape?.spec.ingress)).toContain('9464');
  });
});
