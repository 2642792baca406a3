import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

export const REPOSITORY = path.resolve(__dirname, '../../..');
export const K8S = path.join(REPOSITORY, 'k8s');
const KUBECTL = process.env.KUBECTL ?? '/usr/bin/kubectl';

/** A rendered Kubernetes object, read loosely: each check reads the fields it needs. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- manifests are schemaless YAML here
  [field: string]: any;
}

export const kubectlAvailable = (): boolean => existsSync(KUBECTL);

export const folders = (under: string): string[] =>
  readdirSync(path.join(K8S, under), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(K8S, under, entry.name));

export function parseObjects(yamlText: string): KubeObject[] {
  return parseAllDocuments(yamlText)
    .map((doc) => doc.toJS({ maxAliasCount: -1 }) as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

/** `kubectl kustomize` of an overlay folder. */
export function renderOverlay(folder: string): KubeObject[] {
  return parseObjects(execFileSync(KUBECTL, ['kustomize', folder], { encoding: 'utf8' }));
}

/** A component renders only on top of something: the base plus that component alone. */
export function renderComponent(folder: string): KubeObject[] {
  const scratch = mkdtempSync(path.join(tmpdir(), 'kustomize-component-'));
  try {
    const relative = (to: string) => path.relative(scratch, to);
    writeFileSync(
      path.join(scratch, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        `resources: [${relative(path.join(K8S, 'base'))}]`,
        `components: [${relative(folder)}]`,
      ].join('\n'),
    );
    return parseObjects(
      execFileSync(KUBECTL, ['kustomize', '--load-restrictor', 'LoadRestrictionsNone', scratch], { encoding: 'utf8' }),
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The kubernetes-models class of an object (kubernetes-models for the built-in kinds,
 * @kubernetes-models/cert-manager for cert-manager's, @kubernetes-models/prometheus-operator for
 * the Prometheus Operator's), or undefined for a kind none knows.
 */
export function modelOf(object: KubeObject): (new (data: object) => { validate(): void }) | undefined {
  const packageName = object.apiVersion.includes('cert-manager.io')
    ? '@kubernetes-models/cert-manager'
    : object.apiVersion.startsWith('monitoring.coreos.com/')
      ? '@kubernetes-models/prometheus-operator'
      : 'kubernetes-models';
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module is chosen by apiVersion
    return require(`${packageName}/${object.apiVersion}`)[object.kind];
  } catch {
    return undefined;
  }
}

export const byKind = (objects: KubeObject[], kind: string): KubeObject[] => objects.filter((o) => o.kind === kind);

/** Does a LabelSelector (matchLabels and matchExpressions) select these labels? */
export function selects(
  selector: {
    matchLabels?: Record<string, string>;
    matchExpressions?: { key: string; operator: string; values?: string[] }[];
  },
  labels: Record<string, string>,
): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpression = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    if (operator === 'In') return values.includes(labels[key]);
    if (operator === 'NotIn') return !values.includes(labels[key]);
    if (operator === 'Exists') return key in labels;
    return !(key in labels);
  });
  return byLabel && byExpression;
}

export const isEmptySelector = (selector: { matchLabels?: object; matchExpressions?: unknown[] }): boolean =>
  Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;

/** The config module a container of the platform image runs, as deploy/docker-entrypoint.sh picks it. */
export function configModuleOf(processName: string): string {
  return processName === 'gateway'
    ? path.join(REPOSITORY, 'gateway/dist/config.js')
    : path.join(REPOSITORY, 'services', processName, 'dist/config.js');
}

export interface ConfigCheck {
  label: string;
  configModule: string;
  env: Record<string, string>;
}

/** What a process's configuration loader made of an environment: its configuration, or why it stopped. */
export type LoadedConfig = { refused: null; config: Record<string, unknown> } | { refused: string; config: null };

/**
 * Runs each process's own configuration loader (the exported `load…Config` of its config.ts,
 * the first thing its main does) on the given environment, in one child process without the
 * test's environment. Answers, per check, the configuration it read or the message it stopped with.
 */
export function runConfigLoaders(checks: ConfigCheck[]): Record<string, LoadedConfig> {
  const script = `
    const checks = JSON.parse(require('fs').readFileSync(0, 'utf8'));
    const results = {};
    const exit = process.exit;
    let stderr = '';
    process.stderr.write = (chunk) => { stderr += chunk; return true; };
    for (const check of checks) {
      const mod = require(check.configModule);
      const load = Object.entries(mod).find(([name, value]) => /^load\\w*Config$/.test(name) && typeof value === 'function');
      stderr = '';
      process.env = { ...check.env };
      process.exit = (code) => { throw Object.assign(new Error('exit'), { exitCode: code }); };
      try {
        if (!load) throw new Error('no load…Config function in ' + check.configModule);
        results[check.label] = { refused: null, config: load[1]() };
      } catch (err) {
        const refused = err.exitCode !== undefined ? stderr.trim() || 'exit ' + err.exitCode : String(err);
        results[check.label] = { refused, config: null };
      } finally {
        process.exit = exit;
      }
    }
    process.stdout.write(JSON.stringify(results));
  `;
  const output = execFileSync(process.execPath, ['-e', script], {
    cwd: REPOSITORY,
    input: JSON.stringify(checks),
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  return JSON.parse(output) as Record<string, LoadedConfig>;
}

/** The refusals among loaded configurations, by label (empty when every process started). */
export const refusals = (loaded: Record<string, LoadedConfig>): [string, string][] =>
  Object.entries(loaded).flatMap(([label, result]) => (result.refused === null ? [] : [[label, result.refused]]));
