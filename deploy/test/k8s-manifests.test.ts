/**
 * The Kubernetes manifests as a cluster operator would apply them (docs/deployment.md): every
 * overlay and component renders, every object is valid against the Kubernetes schemas, every
 * Deployment is hardened and fenced by a NetworkPolicy, and each overlay hangs together: the
 * addresses in its configuration name its Services on ports they expose, and every process
 * starts on the configuration and secrets the overlay (or its instructions) gives it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  byKind,
  configModuleOf,
  folders,
  isEmptySelector,
  K8S,
  kubectlAvailable,
  modelOf,
  parseObjects,
  renderComponent,
  renderOverlay,
  refusals,
  REPOSITORY,
  runConfigLoaders,
  selects,
  type ConfigCheck,
  type KubeObject,
} from './support/manifests';

const overlays = folders('overlays');
const components = folders('components');
const describeWithKubectl = kubectlAvailable() ? describe : describe.skip;
if (!kubectlAvailable()) {
  // kustomize has no renderer on npm (it is Go, inside kubectl); without kubectl nothing renders.
  console.warn('k8s-manifests: /usr/bin/kubectl (or KUBECTL) not found, the manifest tests are skipped');
}

const rendered = new Map<string, KubeObject[]>();
const renderedOverlay = (folder: string): KubeObject[] => {
  if (!rendered.has(folder)) rendered.set(folder, renderOverlay(folder));
  return rendered.get(folder)!;
};
const name = (folder: string) => path.relative(K8S, folder);

const podLabels = (deployment: KubeObject): Record<string, string> => deployment.spec.template.metadata.labels ?? {};
const containers = (deployment: KubeObject): KubeObject[] => deployment.spec.template.spec.containers;

describeWithKubectl('Kubernetes manifests render and are valid', () => {
  it('has the dev and prod overlays and components to render', () => {
    expect(overlays.map(name)).toEqual(expect.arrayContaining(['overlays/dev', 'overlays/prod']));
    expect(components.length).toBeGreaterThan(0);
  });

  it.each([...overlays, ...components].map((folder) => [name(folder), folder]))(
    'every object of %s is valid against the Kubernetes schemas',
    (_name, folder) => {
      const objects = folder.includes('/overlays/') ? renderedOverlay(folder) : renderComponent(folder);
      expect(objects.length).toBeGreaterThan(0);
      const problems: string[] = [];
      for (const object of objects) {
        const Model = modelOf(object);
        if (!Model) {
          problems.push(
            `${object.apiVersion} ${object.kind} ${object.metadata.name}: no schema to validate it against`,
          );
          continue;
        }
        try {
          new Model(object).validate();
        } catch (err) {
          problems.push(`${object.kind} ${object.metadata.name}: ${(err as Error).message}`);
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it('uses every component in an overlay', () => {
    const used = new Set(
      overlays.flatMap((folder) => {
        const [kustomization] = parseObjects(readFileSync(path.join(folder, 'kustomization.yaml'), 'utf8'));
        return ((kustomization.components ?? []) as string[]).map((c) => path.resolve(folder, c));
      }),
    );
    expect(components.filter((c) => !used.has(c)).map(name)).toEqual([]);
  });

  it.each(overlays.map((folder) => [name(folder), folder]))(
    'every Deployment of %s has probes, limits, a non-root security context and a NetworkPolicy',
    (_name, folder) => {
      const objects = renderedOverlay(folder);
      const policies = byKind(objects, 'NetworkPolicy');
      const problems: string[] = [];
      // Default deny: a policy on every pod for both directions, so what is not allowed is refused.
      const denyAll = policies.find(
        (p) =>
          isEmptySelector(p.spec.podSelector) && ['Ingress', 'Egress'].every((t) => p.spec.policyTypes?.includes(t)),
      );
      if (!denyAll) problems.push('no default-deny NetworkPolicy (empty podSelector, Ingress and Egress)');
      for (const deployment of byKind(objects, 'Deployment')) {
        const id = `Deployment ${deployment.metadata.name}`;
        const pod = deployment.spec.template.spec;
        for (const container of containers(deployment)) {
          if (!container.readinessProbe) problems.push(`${id}: container ${container.name} has no readinessProbe`);
          if (!container.livenessProbe) problems.push(`${id}: container ${container.name} has no livenessProbe`);
          // A CPU request and a memory limit; the platform's own have no CPU limit ("Sizing" test below).
          if (!container.resources?.requests?.cpu || !container.resources?.limits?.memory)
            problems.push(`${id}: container ${container.name} has no cpu request or no memory limit`);
          const nonRoot = container.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot;
          const user = container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
          if (nonRoot !== true || user === 0) problems.push(`${id}: container ${container.name} may run as root`);
          if (container.securityContext?.allowPrivilegeEscalation !== false) {
            problems.push(`${id}: container ${container.name} may escalate privileges`);
          }
        }
        // Its own rules for both directions: a shared policy (metrics, OTLP) opens one port only.
        const own = policies.filter(
          (p) =>
            !isEmptySelector(p.spec.podSelector) &&
            ['Ingress', 'Egress'].every((t) => p.spec.policyTypes?.includes(t)) &&
            selects(p.spec.podSelector, podLabels(deployment)),
        );
        if (own.length === 0) problems.push(`${id}: selected by no NetworkPolicy of its own`);
      }
      // A policy naming pods that do not exist (a typo) would silently allow nothing.
      const allLabels = byKind(objects, 'Deployment').map(podLabels);
      for (const policy of policies) {
        const peers = [...(policy.spec.ingress ?? []), ...(policy.spec.egress ?? [])].flatMap(
          (rule: { from?: KubeObject[]; to?: KubeObject[] }) => [...(rule.from ?? []), ...(rule.to ?? [])],
        );
        for (const peer of peers) {
          if (peer.podSelector && !peer.namespaceSelector && !allLabels.some((l) => selects(peer.podSelector, l))) {
            problems.push(
              `NetworkPolicy ${policy.metadata.name}: peer ${JSON.stringify(peer.podSelector)} selects no pod`,
            );
          }
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it('keeps every Deployment of prod under a PodDisruptionBudget and its Ingress behind TLS', () => {
    const objects = renderedOverlay(path.join(K8S, 'overlays/prod'));
    const budgets = byKind(objects, 'PodDisruptionBudget');
    const unguarded = byKind(objects, 'Deployment')
      .filter((d) => !budgets.some((b) => selects(b.spec.selector, podLabels(d))))
      .map((d) => d.metadata.name);
    expect(unguarded).toEqual([]);
    const [ingress] = byKind(objects, 'Ingress');
    expect(ingress.metadata.annotations).toHaveProperty(['cert-manager.io/cluster-issuer']);
    const hosts = ingress.spec.rules.map((rule: { host: string }) => rule.host);
    expect(ingress.spec.tls.flatMap((tls: { hosts: string[] }) => tls.hosts)).toEqual(expect.arrayContaining(hosts));
  });
});

/** Default ports of the URL schemes the configuration uses. */
const SCHEME_PORTS: Record<string, number> = {
  'http:': 80,
  'https:': 443,
  'nats:': 4222,
  'redis:': 6379,
  'rediss:': 6379,
  'postgres:': 5432,
};

/** The host and port a value addresses, if it is a URL or a gRPC target (dns:///host:port, host:port). */
function addressOf(value: string): { scheme: string; host: string; port: number } | undefined {
  const grpc = /^(?:dns:\/\/\/)?([a-z0-9][a-z0-9.-]*):(\d+)$/.exec(value);
  if (grpc) return { scheme: 'grpc', host: grpc[1], port: Number(grpc[2]) };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (!(url.protocol in SCHEME_PORTS) || !url.hostname) return undefined;
  return { scheme: url.protocol, host: url.hostname, port: url.port ? Number(url.port) : SCHEME_PORTS[url.protocol] };
}

/** The Secrets the processes of an overlay read: rendered ones, or what its create-secrets.sh creates. */
/** The HPAs' CPU target, the rule of docs/deployment.md "Sizing" divides by. */
const SIZING_UTILIZATION = 0.7;

/** Millicores of a CPU quantity (`400m`, `1`). */
function millicores(quantity: string | number | undefined): number | undefined {
  if (quantity === undefined) return undefined;
  const text = String(quantity);
  return text.endsWith('m') ? Number(text.slice(0, -1)) : Number(text) * 1000;
}

/** The table of docs/deployment.md "Sizing": per process, cores at the design load, pods, CPU request. */
function sizingTable(): Map<string, { cores: number; pods: number; requestMillicores: number }> {
  const docs = readFileSync(path.join(REPOSITORY, 'docs/deployment.md'), 'utf8');
  const section = docs.slice(docs.indexOf('## Sizing'), docs.indexOf('\n## ', docs.indexOf('## Sizing') + 1));
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const [header, , ...body] = rows;
  const column = (title: string) => header!.indexOf(title);
  expect([column('process'), column('cores'), column('pods'), column('CPU request')]).not.toContain(-1);
  return new Map(
    body.map((cells) => [
      cells[column('process')]!,
      {
        cores: Number(cells[column('cores')]),
        pods: Number(cells[column('pods')]),
        requestMillicores: millicores(cells[column('CPU request')])!,
      },
    ]),
  );
}

/** Bytes of a Kubernetes quantity such as 20Gi or 512Mi. */
function quantityBytes(quantity: string): number {
  const units: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
  const match = /^(\d+)(Ki|Mi|Gi|Ti)?$/.exec(quantity);
  if (!match) throw new Error(`not a quantity: ${quantity}`);
  return Number(match[1]) * (match[2] ? units[match[2]]! : 1);
}

/** What the tests hand create-secrets.sh as the live provider key, to see which Secrets it lands in. */
const LIVE_PROVIDER_KEY = 'sk_live_handed_to_create_secrets_by_the_test';

function secretsOf(folder: string, objects: KubeObject[]): Map<string, Record<string, string>> {
  const secrets = [...byKind(objects, 'Secret')];
  const script = path.join(folder, 'create-secrets.sh');
  if (existsSync(script)) {
    const output = execFileSync(script, ['--dry-run=client', '-o', 'yaml'], {
      encoding: 'utf8',
      // Its optional keys too, so that the checks see where each would go.
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: 'postgres://billing:a-password@db.example.internal:5432/postgres',
        PAYSTACK_SECRET_KEY: LIVE_PROVIDER_KEY,
        SMTP_URL: 'smtps://mailer:a-password@smtp.example.com:465',
      },
    });
    secrets.push(...parseObjects(output));
  }
  return new Map(
    secrets.map((secret) => [
      secret.metadata.name,
      Object.fromEntries(
        Object.entries({ ...(secret.data ?? {}) } as Record<string, string>)
          .map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')])
          .concat(Object.entries(secret.stringData ?? {})),
      ),
    ]),
  );
}

type Direction = 'Ingress' | 'Egress';

/**
 * Whether the NetworkPolicies let a pod (labels `subject`) send (Egress) to or take (Ingress)
 * from `peer` on a port: the pod labels of a Deployment of the overlay, or 'outside' (an address
 * outside the namespace, which only a rule without `to` or with an ipBlock reaches).
 */
function allowed(
  policies: KubeObject[],
  direction: Direction,
  subject: Record<string, string>,
  peer: Record<string, string> | 'outside',
  port: { number: number; name?: string },
): boolean {
  const applying = policies.filter(
    (p) => p.spec.policyTypes?.includes(direction) && selects(p.spec.podSelector, subject),
  );
  if (applying.length === 0) return true;
  return applying.some((policy) =>
    ((direction === 'Ingress' ? policy.spec.ingress : policy.spec.egress) ?? []).some((rule: KubeObject) => {
      const peers: KubeObject[] | undefined = direction === 'Ingress' ? rule.from : rule.to;
      const peerAllowed =
        !peers ||
        peers.some((p) =>
          peer === 'outside'
            ? Boolean(p.ipBlock)
            : Boolean(p.podSelector && !p.namespaceSelector && selects(p.podSelector, peer)),
        );
      const portAllowed =
        !rule.ports ||
        rule.ports.some((p: { port: number | string }) => p.port === port.number || p.port === port.name);
      return peerAllowed && portAllowed;
    }),
  );
}

/** Why the pods of `deployment` cannot reach the address `value` names (nothing when they can, or it is no address). */
function blockedAddress(objects: KubeObject[], deployment: KubeObject, value: string): string[] {
  const address = addressOf(value);
  if (!address) return [];
  const policies = byKind(objects, 'NetworkPolicy');
  const from = podLabels(deployment);
  const service = byKind(objects, 'Service').find((s) =>
    [s.metadata.name, `${s.metadata.name}.${s.metadata.namespace}.svc.cluster.local`].includes(address.host),
  );
  const publicHost =
    ['localhost', '127.0.0.1'].includes(address.host) ||
    byKind(objects, 'Ingress').some((i) => i.spec.rules.some((r: { host: string }) => r.host === address.host));
  if (publicHost) return []; // addresses for browsers, which the processes do not call
  if (!service || service.spec.type === 'ExternalName') {
    return allowed(policies, 'Egress', from, 'outside', { number: address.port })
      ? []
      : [`no egress to port ${address.port} outside the namespace`];
  }
  const servicePort = service.spec.ports.find((p: { port: number }) => p.port === address.port);
  if (!servicePort) return [`Service ${service.metadata.name} has no port ${address.port}`];
  const targets = byKind(objects, 'Deployment').filter((d) =>
    selects({ matchLabels: service.spec.selector }, podLabels(d)),
  );
  return targets.flatMap((target) => {
    const targetPort = servicePort.targetPort ?? servicePort.port;
    const containerPort = containers(target)
      .flatMap((c) => c.ports ?? [])
      .find((p: { name?: string; containerPort: number }) => p.name === targetPort || p.containerPort === targetPort);
    if (!containerPort) return [`${target.metadata.name} has no container port ${targetPort}`];
    const port = { number: containerPort.containerPort, name: containerPort.name };
    const why: string[] = [];
    if (!allowed(policies, 'Egress', from, podLabels(target), port))
      why.push(`no egress to ${target.metadata.name}:${port.number}`);
    if (!allowed(policies, 'Ingress', podLabels(target), from, port))
      why.push(`${target.metadata.name} takes no ingress on ${port.number}`);
    return why;
  });
}

describeWithKubectl('Kubernetes overlays hang together', () => {
  it.each(overlays.map((folder) => [name(folder), folder]))(
    'every address in the configuration of %s names a Service on a port it exposes',
    (_name, folder) => {
      const objects = renderedOverlay(folder);
      const services = byKind(objects, 'Service');
      const ingressRules = byKind(objects, 'Ingress').flatMap((ingress) => ingress.spec.rules as KubeObject[]);
      const values: [string, string][] = [
        ...byKind(objects, 'ConfigMap').flatMap((map) =>
          Object.entries(map.data ?? {}).map(([key, value]) => [
            `ConfigMap ${map.metadata.name} ${key}`,
            String(value),
          ]),
        ),
        // Rendered Secrets only: what create-secrets.sh creates holds the operator's own addresses.
        ...byKind(objects, 'Secret').flatMap((secret) =>
          Object.entries(secret.data ?? {}).map(([key, value]) => [
            `Secret ${secret.metadata.name} ${key}`,
            Buffer.from(String(value), 'base64').toString('utf8'),
          ]),
        ),
      ] as [string, string][];
      const problems: string[] = [];
      let addresses = 0;
      for (const [where, value] of values) {
        const address = addressOf(value);
        if (!address) continue;
        addresses += 1;
        const service = services.find((s) => {
          const ns = s.metadata.namespace;
          const names = [
            s.metadata.name,
            `${s.metadata.name}.${ns}`,
            `${s.metadata.name}.${ns}.svc`,
            `${s.metadata.name}.${ns}.svc.cluster.local`,
          ];
          return names.includes(address.host);
        });
        if (service) {
          const ports = (service.spec.ports ?? []).map((p: { port: number }) => p.port);
          if (!ports.includes(address.port))
            problems.push(`${where}: ${value}: Service ${service.metadata.name} exposes ${ports.join(', ')}`);
          continue;
        }
        // A public address: an Ingress host over TLS, or (an overlay without Ingress: dev) a port-forward to localhost.
        const rule = ingressRules.find((r) => r.host === address.host);
        if (rule) {
          if (address.scheme !== 'https:') problems.push(`${where}: ${value}: the Ingress serves it over https`);
          continue;
        }
        if (ingressRules.length === 0 && ['localhost', '127.0.0.1'].includes(address.host)) continue;
        problems.push(`${where}: ${value}: no Service ${address.host} in ${name(folder)}, nor an Ingress host`);
      }
      expect(addresses).toBeGreaterThan(5);
      // Every Ingress backend is a Service port that exists.
      for (const rule of ingressRules) {
        for (const { backend } of rule.http.paths as KubeObject[]) {
          const service = services.find((s) => s.metadata.name === backend.service.name);
          const port = service?.spec.ports?.find(
            (p: { name?: string; port: number }) =>
              p.name === backend.service.port.name || p.port === backend.service.port.number,
          );
          if (!port) problems.push(`Ingress ${rule.host}: no Service port ${JSON.stringify(backend.service)}`);
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it.each(overlays.map((folder) => [name(folder), folder]))(
    'every process of %s starts on the configuration and secrets the overlay gives it and may reach every address it reads',
    (_name, folder) => {
      const objects = renderedOverlay(folder);
      const secrets = secretsOf(folder, objects);
      const configMaps = new Map(byKind(objects, 'ConfigMap').map((map) => [map.metadata.name, map.data ?? {}]));
      const certificateSecrets = new Set(byKind(objects, 'Certificate').map((c) => c.spec.secretName as string));
      const problems: string[] = [];
      const checks: ConfigCheck[] = [];
      const deploymentOf = new Map<string, KubeObject>();
      for (const deployment of byKind(objects, 'Deployment')) {
        const pod = deployment.spec.template.spec;
        for (const volume of pod.volumes ?? []) {
          const secretName = volume.secret?.secretName;
          if (secretName && !secrets.has(secretName) && !certificateSecrets.has(secretName)) {
            problems.push(
              `Deployment ${deployment.metadata.name}: volume ${volume.name} mounts Secret ${secretName}, which nothing creates`,
            );
          }
        }
        for (const container of containers(deployment)) {
          if (!String(container.image).includes('billing-platform')) continue;
          const id = `${name(folder)} ${deployment.metadata.name}`;
          const env: Record<string, string> = {};
          for (const source of container.envFrom ?? []) {
            const from = source.configMapRef
              ? configMaps.get(source.configMapRef.name)
              : secrets.get(source.secretRef.name);
            if (!from) problems.push(`${id}: envFrom ${JSON.stringify(source)}, which the overlay does not create`);
            Object.assign(env, from);
          }
          for (const variable of container.env ?? []) {
            if (variable.value !== undefined) env[variable.name] = String(variable.value);
            const ref = variable.valueFrom?.secretKeyRef ?? variable.valueFrom?.configMapKeyRef;
            if (!ref) continue;
            const from = variable.valueFrom.secretKeyRef ? secrets.get(ref.name) : configMaps.get(ref.name);
            if (from?.[ref.key] !== undefined) env[variable.name] = from[ref.key];
            else if (!ref.optional)
              problems.push(`${id}: ${variable.name} from ${ref.name}/${ref.key}, which is not there`);
          }
          checks.push({ label: id, configModule: configModuleOf(container.args[0]), env });
          deploymentOf.set(id, deployment);
        }
      }
      expect(checks.length).toBeGreaterThanOrEqual(9);
      const loaded = runConfigLoaders(checks);
      expect(problems).toEqual([]);
      expect(refusals(loaded)).toEqual([]);
      // Every address a process read (its own configuration, so nothing it ignores) is open to it.
      const blocked = Object.entries(loaded).flatMap(([label, { config }]) =>
        Object.entries(config ?? {}).flatMap(([variable, value]) =>
          blockedAddress(objects, deploymentOf.get(label)!, typeof value === 'string' ? value : '').map(
            (why) => `${label} ${variable}=${String(value)}: ${why}`,
          ),
        ),
      );
      expect(blocked).toEqual([]);
    },
  );

  it.each(overlays.map((folder) => [name(folder), folder]))(
    'lets notification of %s deliver webhooks on every port WEBHOOK_PORTS accepts, and the API accepts no other',
    (_name, folder) => {
      const objects = renderedOverlay(folder);
      const config = byKind(objects, 'ConfigMap').find((map) => map.data?.WEBHOOK_PORTS !== undefined);
      expect(config).toBeDefined();
      const ports = String(config!.data.WEBHOOK_PORTS)
        .split(',')
        .map((port) => Number(port.trim()));
      expect(ports.length).toBeGreaterThan(0);
      const notification = byKind(objects, 'Deployment').find((d) => d.metadata.name === 'notification');
      expect(notification).toBeDefined();
      const policies = byKind(objects, 'NetworkPolicy');
      const blocked = ports.filter(
        (port) => !allowed(policies, 'Egress', podLabels(notification!), 'outside', { number: port }),
      );
      expect(blocked).toEqual([]);
    },
  );

  it.each(overlays.map((folder) => [name(folder), folder]))(
    '%s creates its namespace and leaves the replicas of autoscaled Deployments to their HPA',
    (_name, folder) => {
      const objects = renderedOverlay(folder);
      const namespaces = new Set(
        objects.map((o) => o.metadata?.namespace as string | undefined).filter((ns): ns is string => Boolean(ns)),
      );
      const created = byKind(objects, 'Namespace').map((n) => n.metadata.name);
      expect([...namespaces].filter((ns) => !created.includes(ns))).toEqual([]);
      const scaled = new Set(
        byKind(objects, 'HorizontalPodAutoscaler').map((hpa) => hpa.spec.scaleTargetRef.name as string),
      );
      expect(scaled.size).toBeGreaterThan(0);
      const fixed = byKind(objects, 'Deployment')
        .filter((d) => scaled.has(d.metadata.name) && d.spec.replicas !== undefined)
        .map((d) => d.metadata.name);
      expect(fixed).toEqual([]);
    },
  );

  it('spreads every Deployment of prod over zones and nodes, counting its own pods', () => {
    const objects = renderedOverlay(path.join(K8S, 'overlays', 'prod'));
    const unspread = byKind(objects, 'Deployment').filter((d) => {
      const constraints: KubeObject[] = d.spec.template.spec.topologySpreadConstraints ?? [];
      const keys = constraints.map((c) => c.topologyKey);
      const own = constraints.every(
        (c) =>
          c.matchLabelKeys?.includes('app.kubernetes.io/name') && podLabels(d)['app.kubernetes.io/name'] !== undefined,
      );
      return !keys.includes('topology.kubernetes.io/zone') || !keys.includes('kubernetes.io/hostname') || !own;
    });
    expect(unspread.map((d) => d.metadata.name)).toEqual([]);
  });

  it('keeps prod’s PostgreSQL connections at every HPA’s maximum under the budget deployment.md states', () => {
    // docs/deployment.md, "PostgreSQL connections": 270 of a max_connections of 300.
    const BUDGET = 270;
    const objects = renderedOverlay(path.join(K8S, 'overlays', 'prod'));
    const config = byKind(objects, 'ConfigMap').find((c) => c.metadata.name === 'platform-config')!.data;
    const maxPods = new Map(
      byKind(objects, 'HorizontalPodAutoscaler').map((h) => [h.spec.scaleTargetRef.name, h.spec.maxReplicas as number]),
    );
    const perDeployment = byKind(objects, 'Deployment')
      .filter((d) => d.metadata.name !== 'documents')
      .map((d) => {
        const env: KubeObject[] = containers(d)[0].env ?? [];
        const pool = Number(env.find((e) => e.name === 'DATABASE_POOL_MAX')?.value ?? config.DATABASE_POOL_MAX);
        // Analytics holds its consumer leadership lock on a connection of its own.
        const own = d.metadata.name === 'analytics' ? 1 : 0;
        return (maxPods.get(d.metadata.name) ?? d.spec.replicas) * (pool + own);
      });
    expect(perDeployment.every((n) => Number.isInteger(n) && n > 0)).toBe(true);
    expect(perDeployment.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(BUDGET);
  });

  it.each(overlays.map((folder) => [name(folder), folder]))(
    'gives each Deployment of %s a Secret of its own, holding only what its process reads',
    (_name, folder) => {
      const objects = renderedOverlay(folder);
      const secrets = secretsOf(folder, objects);
      const configMaps = new Map(byKind(objects, 'ConfigMap').map((map) => [map.metadata.name, map.data ?? {}]));
      const problems: string[] = [];
      const checks: ConfigCheck[] = [];
      const keysOf = new Map<string, string[]>();
      for (const deployment of byKind(objects, 'Deployment')) {
        const own = `${deployment.metadata.name}-secrets`;
        for (const container of containers(deployment)) {
          const referenced = [
            ...(container.envFrom ?? []).flatMap((source: KubeObject) => source.secretRef?.name ?? []),
            ...(container.env ?? []).flatMap((variable: KubeObject) => variable.valueFrom?.secretKeyRef?.name ?? []),
          ];
          for (const other of referenced.filter((secret: string) => secret !== own))
            problems.push(`Deployment ${deployment.metadata.name} reads Secret ${other}`);
          if (!referenced.includes(own) || !String(container.image).includes('billing-platform')) continue;
          const label = `${name(folder)} ${deployment.metadata.name}`;
          const env: Record<string, string> = {};
          for (const source of container.envFrom ?? []) {
            Object.assign(env, source.configMapRef ? configMaps.get(source.configMapRef.name) : secrets.get(own));
          }
          for (const variable of container.env ?? [])
            if (variable.value !== undefined) env[variable.name] = variable.value;
          checks.push({ label, configModule: configModuleOf(container.args[0]), env });
          keysOf.set(label, Object.keys(secrets.get(own) ?? {}));
        }
      }
      expect(problems).toEqual([]);
      // Every platform process but documents (which reads no secret) has one.
      expect(checks.length).toBe(9);
      // A key the process's configuration does not read is a secret it need not hold.
      const loaded = runConfigLoaders(checks);
      expect(refusals(loaded)).toEqual([]);
      const unread = [...keysOf].flatMap(([label, keys]) =>
        keys.filter((key) => !(key in (loaded[label]!.config ?? {}))).map((key) => `${label}: ${key}`),
      );
      expect(unread).toEqual([]);
    },
  );

  it.each(overlays.map((folder) => [name(folder), folder]))(
    'puts the provider keys of %s only in the Secrets of the processes that call the provider',
    (_name, folder) => {
      const secrets = secretsOf(folder, renderedOverlay(folder));
      const holding = (key: string) =>
        [...secrets]
          .filter(([, data]) => data[key] !== undefined)
          .map(([secret]) => secret)
          .sort();
      // catalog checks the providers' webhooks and starts checkouts; billing charges; the
      // sandbox is the test-mode provider itself.
      expect(holding('SANDBOX_SECRET_KEY')).toEqual(['billing-secrets', 'catalog-secrets', 'sandbox-provider-secrets']);
      if (folder.endsWith('prod')) {
        expect(holding('PAYSTACK_SECRET_KEY')).toEqual(['billing-secrets', 'catalog-secrets']);
        expect(secrets.get('billing-secrets')!.PAYSTACK_SECRET_KEY).toBe(LIVE_PROVIDER_KEY);
      } else {
        expect(holding('PAYSTACK_SECRET_KEY')).toEqual([]);
      }
    },
  );

  it('creates with create-secrets.sh exactly the Secrets the prod Deployments read', () => {
    const folder = path.join(K8S, 'overlays/prod');
    const objects = renderedOverlay(folder);
    const referenced = new Set(
      byKind(objects, 'Deployment').flatMap((deployment) =>
        containers(deployment).flatMap((container) => [
          ...(container.envFrom ?? []).flatMap((source: KubeObject) => source.secretRef?.name ?? []),
          ...(container.env ?? []).flatMap((variable: KubeObject) => variable.valueFrom?.secretKeyRef?.name ?? []),
        ]),
      ),
    );
    const created = [...secretsOf(folder, objects).keys()];
    expect(created.sort()).toEqual([...referenced].sort());
    // Keys shared by two processes are one value: portal verifies the links notification signs.
    const secrets = secretsOf(folder, objects);
    expect(secrets.get('portal-secrets')!.PORTAL_LINKS_KEY).toBe(secrets.get('notification-secrets')!.PORTAL_LINKS_KEY);
  });

  it('keeps three copies of the events stream in prod, on the three-server NATS cluster its Helm values describe', () => {
    const objects = renderedOverlay(path.join(K8S, 'overlays/prod'));
    const config = byKind(objects, 'ConfigMap').find((map) => map.metadata.name === 'platform-config')!.data;
    expect(config.EVENTS_STREAM_REPLICAS).toBe('3');
    const values = parseObjects(
      readFileSync(path.join(K8S, 'overlays/prod/nats-values.yaml'), 'utf8'),
    )[0] as KubeObject;
    expect(values.config.cluster).toMatchObject({ enabled: true, replicas: Number(config.EVENTS_STREAM_REPLICAS) });
    expect(values.config.jetstream).toMatchObject({
      enabled: true,
      fileStore: { enabled: true, pvc: { enabled: true } },
    });
    // The cap fits on each server's volume, with room for the rest of JetStream's files.
    const volumeBytes = quantityBytes(values.config.jetstream.fileStore.pvc.size);
    expect(Number(config.EVENTS_STREAM_MAX_BYTES)).toBeLessThanOrEqual(volumeBytes * 0.75);
    // One server per zone: losing a zone takes one copy of three.
    expect(Object.keys(values.podTemplate.topologySpreadConstraints)).toContain('topology.kubernetes.io/zone');
    // The prod overlay's `nats` Service names the Service that chart makes (release `nats`, namespace `nats`).
    const nats = byKind(objects, 'Service').find((service) => service.metadata.name === 'nats')!;
    expect(nats.spec.externalName).toBe('nats.nats.svc.cluster.local');
  });

  it('requests for each prod Deployment the CPU docs/deployment.md "Sizing" measured, with no CPU limit and memory limit = request', () => {
    const objects = renderedOverlay(path.join(K8S, 'overlays/prod'));
    const sizing = sizingTable();
    // The rule's target is the HPAs' own.
    const targets = byKind(objects, 'HorizontalPodAutoscaler').map(
      (hpa) => hpa.spec.metrics[0].resource.target.averageUtilization as number,
    );
    expect(new Set(targets)).toEqual(new Set([SIZING_UTILIZATION * 100]));
    const minimums = new Map(
      byKind(objects, 'HorizontalPodAutoscaler').map((hpa) => [hpa.spec.scaleTargetRef.name, hpa.spec.minReplicas]),
    );
    const problems: string[] = [];
    const platform = byKind(objects, 'Deployment').filter((d) =>
      containers(d).some((c) => String(c.image).includes('billing-platform')),
    );
    expect(platform.map((d) => d.metadata.name).sort()).toEqual([...sizing.keys()].sort());
    for (const deployment of platform) {
      const row = sizing.get(deployment.metadata.name)!;
      const pods = minimums.get(deployment.metadata.name) ?? deployment.spec.replicas;
      if (row.pods !== pods)
        problems.push(`${deployment.metadata.name}: ${pods} pods in prod, ${row.pods} in the table`);
      const rule = Math.max(100, Math.ceil((row.cores * 1000) / row.pods / SIZING_UTILIZATION / 50) * 50);
      if (row.requestMillicores !== rule)
        problems.push(`${deployment.metadata.name}: the table's ${row.requestMillicores}m breaks the rule (${rule}m)`);
      const { requests = {}, limits = {} } = containers(deployment)[0]!.resources ?? {};
      if (millicores(requests.cpu) !== row.requestMillicores)
        problems.push(`${deployment.metadata.name}: requests ${requests.cpu}, the table ${row.requestMillicores}m`);
      if (limits.cpu !== undefined) problems.push(`${deployment.metadata.name}: a CPU limit of ${limits.cpu}`);
      if (!limits.memory || limits.memory !== requests.memory)
        problems.push(`${deployment.metadata.name}: memory limit ${limits.memory}, request ${requests.memory}`);
    }
    expect(problems).toEqual([]);
  });

  it('gives production every secret development has', () => {
    const secretKeys = (overlay: string) =>
      [...secretsOf(path.join(K8S, 'overlays', overlay), renderedOverlay(path.join(K8S, 'overlays', overlay))).values()]
        .flatMap(Object.keys)
        .sort();
    expect(secretKeys('prod')).toEqual(expect.arrayContaining(secretKeys('dev')));
  });

  it('issues every gRPC certificate to the Service its name is, mounted by that Service’s pods', () => {
    const objects = renderedOverlay(path.join(K8S, 'overlays/prod'));
    const problems: string[] = [];
    for (const certificate of byKind(objects, 'Certificate').filter((c) => !c.spec.isCA)) {
      const { commonName, dnsNames, secretName } = certificate.spec;
      const service = byKind(objects, 'Service').find((s) => s.metadata.name === commonName);
      const mounting = byKind(objects, 'Deployment').filter((d) =>
        (d.spec.template.spec.volumes ?? []).some((v: KubeObject) => v.secret?.secretName === secretName),
      );
      if (!service || !dnsNames?.includes(commonName))
        problems.push(`Certificate ${certificate.metadata.name}: ${commonName} is not its Service`);
      else if (mounting.length !== 1 || !selects({ matchLabels: service.spec.selector }, podLabels(mounting[0]))) {
        problems.push(
          `Certificate ${certificate.metadata.name}: ${secretName} is not mounted by the pods of Service ${commonName}`,
        );
      }
    }
    expect(problems).toEqual([]);
  });
});
