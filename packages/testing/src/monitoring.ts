import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parseAllDocuments } from 'yaml';

/** The monitoring component (docs/slos.md, docs/deployment.md "Metrics"): rules and dashboards. */
export const MONITORING_COMPONENT = path.resolve(__dirname, '../../../k8s/components/monitoring');

/**
 * Series that no process of the platform serves, with who does: the Prometheus server itself
 * (`up`, one per scrape target) and kube-state-metrics (pod restarts).
 */
export const SERIES_FROM_ELSEWHERE: Record<string, string> = {
  up: 'Prometheus (one per scrape target)',
  kube_pod_container_status_restarts_total: 'kube-state-metrics',
};

/** One PromQL expression of the monitoring component and where it is. */
export interface MonitoringQuery {
  /** `alert PaymentProviderErrors`, `record slo:sli_error:ratio_rate5m`, `dashboard billing-slos: <panel>`. */
  source: string;
  expr: string;
}

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface RecordingRule {
  record: string;
  expr: string;
  labels?: Record<string, string>;
}
/** A PrometheusRule object, read loosely. */
export interface PrometheusRuleObject {
  kind: string;
  metadata: { name: string };
  spec: { groups: { name: string; rules: (AlertRule | RecordingRule)[] }[] };
}
/** A Grafana dashboard, read loosely: its panels and their queries. */
export interface GrafanaDashboard {
  uid: string;
  title: string;
  panels: { title: string; targets?: { expr: string }[] }[];
}

/** The rule groups' rules of some PrometheusRule objects. */
export const rulesOf = (objects: PrometheusRuleObject[]): (AlertRule | RecordingRule)[] =>
  objects.flatMap((object) => object.spec.groups.flatMap((group) => group.rules));

/** The PrometheusRule objects of the component's YAML files. */
export function componentRules(): PrometheusRuleObject[] {
  return readdirSync(MONITORING_COMPONENT)
    .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
    .flatMap((file) =>
      parseAllDocuments(readFileSync(path.join(MONITORING_COMPONENT, file), 'utf8')).map(
        (doc) => doc.toJS() as PrometheusRuleObject,
      ),
    )
    .filter((object) => object.kind === 'PrometheusRule');
}

/** The component's dashboards, by file name. */
export function componentDashboards(): Map<string, GrafanaDashboard> {
  const folder = path.join(MONITORING_COMPONENT, 'dashboards');
  return new Map(
    readdirSync(folder)
      .filter((file) => file.endsWith('.json'))
      .map((file) => [file, JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as GrafanaDashboard]),
  );
}

/** Every expression of the component's rules and dashboards. */
export function monitoringQueries(
  rules: PrometheusRuleObject[] = componentRules(),
  dashboards: Map<string, GrafanaDashboard> = componentDashboards(),
): MonitoringQuery[] {
  const fromRules = rulesOf(rules).map((rule) => ({
    source: 'alert' in rule ? `alert ${rule.alert}` : `record ${rule.record}`,
    expr: rule.expr,
  }));
  const fromDashboards = [...dashboards].flatMap(([file, dashboard]) =>
    dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({ source: `dashboard ${file}: ${panel.title}`, expr: target.expr })),
    ),
  );
  return [...fromRules, ...fromDashboards];
}

/**
 * Parses an expression with Prometheus's own PromQL grammar (@prometheus-io/lezer-promql) and
 * returns the metric names its selectors name (a histogram's as written: `x_bucket`, `x_count`).
 * Throws on a syntax error, naming where it is.
 */
export function metricNamesOf(expr: string): string[] {
  const names = new Set<string>();
  let error: number | undefined;
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError) error ??= node.from;
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') {
        names.add(expr.slice(node.from, node.to));
      }
    },
  });
  if (error !== undefined) throw new Error(`PromQL syntax error at ${error}: ${expr.slice(error, error + 40)}`);
  return [...names];
}

/**
 * The metric names the monitoring component needs some process to serve: every name its
 * expressions select, less those its recording rules make and those served elsewhere
 * (SERIES_FROM_ELSEWHERE), each with the places that use it.
 */
export function metricsNeededFromProcesses(queries: MonitoringQuery[] = monitoringQueries()): Map<string, string[]> {
  const recorded = new Set(rulesOf(componentRules()).flatMap((rule) => ('record' in rule ? [rule.record] : [])));
  const needed = new Map<string, string[]>();
  for (const { source, expr } of queries) {
    for (const name of metricNamesOf(expr)) {
      if (recorded.has(name) || name in SERIES_FROM_ELSEWHERE) continue;
      needed.set(name, [...(needed.get(name) ?? []), source]);
    }
  }
  return needed;
}
