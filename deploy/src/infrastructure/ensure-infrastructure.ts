import { join } from 'node:path';
import { errorMessage } from './error-message';
import { startLocalServer, type StartedServer } from './local-servers';
import { DEFAULT_NATS_URL, NATS_SERVER, probeNats } from './nats';
import { DEFAULT_DATABASE_URL, probePostgres, startEmbeddedPostgres } from './postgres';
import { DEFAULT_REDIS_URL, probeRedis, REDIS_SERVER } from './redis';
import { STATE_DIR } from './state-directories';

export interface Infrastructure {
  databaseUrl: string;
  natsUrl: string;
  /** The gateways' shared rate-limit store; unset when none could be had and none was required. */
  redisUrl?: string;
  /** One line per dependency, e.g. "PostgreSQL: embedded, port 41234, …". */
  summary: string[];
  /** Stops what this runner started (nothing when it reused running servers). */
  stop(): Promise<void>;
}

export class InfrastructureError extends Error {}

/** A server the platform needs: used where it answers, else one the runner starts. */
interface Dependency {
  name: 'PostgreSQL' | 'NATS JetStream' | 'Redis';
  variable: 'DATABASE_URL' | 'NATS_URL' | 'REDIS_URL';
  defaultUrl: string;
  probe(url: string): Promise<void>;
  /** The server the runner starts instead, as the log names it. */
  fallback: string;
  start(log: (message: string) => void): Promise<StartedServer>;
}

const DEPENDENCIES: Dependency[] = [
  {
    name: 'PostgreSQL',
    variable: 'DATABASE_URL',
    defaultUrl: DEFAULT_DATABASE_URL,
    probe: probePostgres,
    fallback: 'embedded PostgreSQL',
    start: startEmbeddedPostgres,
  },
  {
    name: 'NATS JetStream',
    variable: 'NATS_URL',
    defaultUrl: DEFAULT_NATS_URL,
    probe: probeNats,
    fallback: 'a local nats-server -js',
    start: (log) => startLocalServer(NATS_SERVER, join(STATE_DIR, 'jetstream'), log),
  },
  {
    name: 'Redis',
    variable: 'REDIS_URL',
    defaultUrl: DEFAULT_REDIS_URL,
    probe: probeRedis,
    fallback: 'a local redis-server',
    start: (log) => startLocalServer(REDIS_SERVER, STATE_DIR, log),
  },
];

/**
 * PostgreSQL at DATABASE_URL, NATS JetStream at NATS_URL and Redis at REDIS_URL when they
 * answer; otherwise an embedded PostgreSQL, a local `nats-server -js` and a local
 * `redis-server`. Throws an InfrastructureError that says what is missing when neither works.
 * Redis is not required when `redisRequired` is false (`npm start`): without it each gateway
 * limits requests in its own memory, which one local gateway does anyway.
 */
export async function ensureInfrastructure(
  env: NodeJS.ProcessEnv,
  log: (message: string) => void,
  redisRequired = true,
): Promise<Infrastructure> {
  const wanted = DEPENDENCIES.map((dependency) => env[dependency.variable] || dependency.defaultUrl);
  const unanswered = await Promise.all(
    DEPENDENCIES.map((dependency, i) => dependency.probe(wanted[i]).then(() => undefined, errorMessage)),
  );
  const urls = new Map<Dependency['variable'], string>();
  const started: StartedServer[] = [];
  const summary: string[] = [];
  const problems: string[] = [];
  for (const [i, dependency] of DEPENDENCIES.entries()) {
    if (unanswered[i] === undefined) {
      urls.set(dependency.variable, wanted[i]);
      summary.push(`${dependency.name}: ${redactUrl(wanted[i])}`);
      continue;
    }
    const notReachable = `${dependency.name} not reachable at ${redactUrl(wanted[i])} (${unanswered[i]})`;
    log(`${notReachable}; starting ${dependency.fallback}`);
    try {
      const server = await dependency.start(log);
      started.push(server);
      urls.set(dependency.variable, server.url);
      summary.push(`${dependency.name}: ${server.description}`);
    } catch (err) {
      const problem = `${notReachable}, and ${dependency.fallback} did not start: ${errorMessage(err)} (or set ${dependency.variable} to a ${dependency.name} server that answers)`;
      if (dependency.variable === 'REDIS_URL' && !redisRequired) {
        summary.push(`Redis: none (${problem}); the gateway limits requests in its own memory`);
      } else problems.push(problem);
    }
  }

  const stop = async () => {
    for (const server of started.reverse()) await server.stop().catch((err) => log(`stopping: ${errorMessage(err)}`));
  };
  if (problems.length > 0) {
    await stop();
    throw new InfrastructureError(problems.join('\n'));
  }
  return {
    databaseUrl: urls.get('DATABASE_URL')!,
    natsUrl: urls.get('NATS_URL')!,
    redisUrl: urls.get('REDIS_URL'),
    summary,
    stop,
  };
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
