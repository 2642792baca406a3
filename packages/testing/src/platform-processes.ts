/** One OS process of the platform, as `npm start` and the integration tests run it. */
export interface ProcessSpec {
  name: ServiceName;
  /** Built entry point, relative to the repository root. */
  entry: string;
  /** gRPC services are probed with grpc.health.v1, HTTP servers with GET /healthz. */
  kind: 'grpc' | 'http';
  /** The variable holding the port it listens on, and its default. */
  portVariable: string;
  defaultPort: number;
  /** Where the others reach it (`<NAME>_GRPC_URL` / `<NAME>_URL`); the gateway has none. */
  urlVariable?: string;
  /** A second, HTTP port of a gRPC service (catalog's hosted checkout pages, documents' invoice pages). */
  http?: { portVariable: string; defaultPort: number; urlVariable: string };
  /**
   * Its Prometheus metrics port: the process reads METRICS_PORT, which is set from this
   * variable (`<NAME>_METRICS_PORT`) so that processes on one machine do not share a port.
   */
  metrics: { portVariable: string; defaultPort: number };
}

const metricsPort = (name: ServiceName, defaultPort: number): ProcessSpec['metrics'] => ({
  portVariable: `${name.toUpperCase().replace(/-/g, '_')}_METRICS_PORT`,
  defaultPort,
});

export type ServiceName =
  | 'identity'
  | 'sandbox-provider'
  | 'policy'
  | 'billing'
  | 'catalog'
  | 'notification'
  | 'documents'
  | 'portal'
  | 'analytics'
  | 'gateway';

const grpcService = (
  name: ServiceName,
  defaultPort: number,
  defaultMetricsPort: number,
  http?: ProcessSpec['http'],
): ProcessSpec => ({
  name,
  metrics: metricsPort(name, defaultMetricsPort),
  entry: `services/${name}/dist/main.js`,
  kind: 'grpc',
  portVariable: `${name.toUpperCase()}_GRPC_PORT`,
  defaultPort,
  urlVariable: `${name.toUpperCase()}_GRPC_URL`,
  http,
});

/**
 * Every process of the platform, in start order (dependencies first); stopped in reverse.
 * Adding a service is one line here (see README, "Adding a service").
 */
export const PLATFORM_PROCESSES: ProcessSpec[] = [
  grpcService('identity', 50051, 9471),
  {
    name: 'sandbox-provider',
    entry: 'services/sandbox-provider/dist/main.js',
    kind: 'http',
    portVariable: 'SANDBOX_PROVIDER_PORT',
    defaultPort: 8090,
    urlVariable: 'SANDBOX_PROVIDER_URL',
    metrics: metricsPort('sandbox-provider', 9472),
  },
  // Before billing, which is to ask it for the refund of a cancel-now.
  grpcService('policy', 50054, 9473),
  grpcService('billing', 50053, 9474),
  grpcService('catalog', 50052, 9475, {
    portVariable: 'CATALOG_HTTP_PORT',
    defaultPort: 8082,
    urlVariable: 'CATALOG_HTTP_URL',
  }),
  grpcService('notification', 50055, 9476),
  // After billing, whose events it keeps its read model from and whose history it rebuilds from.
  grpcService('analytics', 50058, 9479),
  // After billing, which it reads every invoice and credit note from.
  grpcService('documents', 50056, 9477, {
    portVariable: 'DOCUMENTS_HTTP_PORT',
    defaultPort: 8083,
    urlVariable: 'DOCUMENTS_HTTP_URL',
  }),
  // After billing, catalog and identity, which it reads and acts through, and before the gateway.
  grpcService('portal', 50057, 9478, {
    portVariable: 'PORTAL_HTTP_PORT',
    defaultPort: 8084,
    urlVariable: 'PORTAL_HTTP_URL',
  }),
  {
    name: 'gateway',
    entry: 'gateway/dist/main.js',
    kind: 'http',
    portVariable: 'PORT',
    defaultPort: 8080,
    metrics: metricsPort('gateway', 9470),
  },
];

export function portOf(spec: ProcessSpec, env: NodeJS.ProcessEnv): number {
  const raw = env[spec.portVariable];
  return raw ? Number(raw) : spec.defaultPort;
}

export function metricsPortOf(spec: ProcessSpec, env: NodeJS.ProcessEnv): number {
  const raw = env[spec.metrics.portVariable];
  return raw ? Number(raw) : spec.metrics.defaultPort;
}

/** The environment of one process: the platform's, with its own METRICS_PORT. */
export function processEnvironment<E extends NodeJS.ProcessEnv>(spec: ProcessSpec, env: E): E {
  return { ...env, METRICS_PORT: String(metricsPortOf(spec, env)) };
}

/**
 * The environment every process gets besides the caller's: each service's port and the
 * address the others use to reach it, so every process can find every other one. Values the
 * caller set win.
 */
export function platformEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const result: Record<string, string> = {};
  for (const spec of PLATFORM_PROCESSES) {
    const port = portOf(spec, env);
    result[spec.portVariable] = String(port);
    result[spec.metrics.portVariable] = String(metricsPortOf(spec, env));
    if (spec.urlVariable) {
      const address = spec.kind === 'grpc' ? `127.0.0.1:${port}` : `http://127.0.0.1:${port}`;
      result[spec.urlVariable] = env[spec.urlVariable] || address;
    }
    if (spec.http) {
      const httpPort = env[spec.http.portVariable] ? Number(env[spec.http.portVariable]) : spec.http.defaultPort;
      result[spec.http.portVariable] = String(httpPort);
      result[spec.http.urlVariable] = env[spec.http.urlVariable] || `http://127.0.0.1:${httpPort}`;
    }
  }
  const gatewayPort = result.PORT;
  // One public address for the gateway's own links and catalog's checkout_url and callbacks.
  result.PUBLIC_URL = env.PUBLIC_URL || `http://localhost:${gatewayPort}`;
  // The sandbox calls the platform's inbound provider webhook, as Paystack would.
  result.SANDBOX_WEBHOOK_URL =
    env.SANDBOX_WEBHOOK_URL || `http://127.0.0.1:${gatewayPort}/api/v1/payments/paystack/webhook`;
  return result;
}

/**
 * The platform package's index, loaded when a suite first starts, probes or cleans up processes
 * rather than when it imports this package: the index brings Sequelize, gRPC and NATS,
 * about a second of CPU that each of the many suites borrowing the run's shared platform would
 * otherwise pay in its own jest module registry.
 */
export function heavyPlatform(): Promise<typeof import('@billing/platform')> {
  return import('@billing/platform');
}

/** Resolves when the process answers its health probe; throws otherwise. */
export async function probeReady(spec: ProcessSpec, port: number, timeoutMs = 1000): Promise<void> {
  if (spec.kind === 'grpc') {
    const { checkGrpcHealth } = await heavyPlatform();
    const status = await checkGrpcHealth(`127.0.0.1:${port}`, '', timeoutMs);
    if (status !== 'SERVING') throw new Error(`health status ${status}`);
    return;
  }
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`/healthz answered ${res.status}`);
}
