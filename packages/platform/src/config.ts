import { z } from 'zod';

/**
 * Variables every process reads. Services extend this with their own.
 * Only config modules read process.env; everything else receives a typed object.
 */
export const baseEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** Where the process serves Prometheus metrics at GET /metrics (docs/deployment.md, "Metrics"). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
});

/**
 * Retention of rows kept only for a while (docs/deployment.md, "Retention"): published outbox
 * events, finished webhook deliveries, replayed parked events. Each pass deletes in batches of
 * RETENTION_BATCH_SIZE rows, every RETENTION_INTERVAL_MS.
 */
export const retentionEnvSchema = z.object({
  RETENTION_OUTBOX_DAYS: z.coerce.number().int().min(1).max(3650).default(7),
  RETENTION_DELIVERY_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  RETENTION_PARKED_EVENT_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(1000),
  RETENTION_INTERVAL_MS: z.coerce.number().int().min(1000).max(86_400_000).default(600_000),
});

export type RetentionConfig = z.infer<typeof retentionEnvSchema>;

/** The database of a process: where it is, its pool and timeouts, and how long rows are kept. */
export const databaseEnvSchema = retentionEnvSchema.extend({
  DATABASE_URL: z.url().default('postgres://postgres@127.0.0.1:5432/postgres'),
  /** Each service uses the database `${DATABASE_NAME_PREFIX}_${service}` on that server. */
  DATABASE_NAME_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,40}$/, 'lower-case letters, digits and _ only')
    .default('billing'),
  /**
   * A URL that reaches PostgreSQL itself, never through a transaction-mode pooler: the few
   * session-level locks (analytics' consumer leadership and its rebuild) are taken there
   * (docs/deployment.md, "PostgreSQL connections"). DATABASE_URL when unset.
   */
  DATABASE_DIRECT_URL: z.url().optional(),
  /** Connections of this process's pool: replicas × this stays under the server's budget. */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /** How long an unused pooled connection stays open before the pool closes it. */
  DATABASE_POOL_IDLE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(10_000),
  /** How long a query waits for a free pooled connection before it fails. */
  DATABASE_POOL_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** PostgreSQL's statement_timeout of each connection; 0 sends none (the role's or server's applies). */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** PostgreSQL's idle_in_transaction_session_timeout of each connection; 0 sends none. */
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
});

/** The settings of databaseEnvSchema, as every process's config carries them. */
export type DatabaseConfig = z.infer<typeof databaseEnvSchema>;

export const natsEnvSchema = z.object({
  NATS_URL: z
    .string()
    .regex(/^nats:\/\/.+/, 'must be a nats:// URL')
    .default('nats://127.0.0.1:4222'),
  /** The JetStream stream that carries domain events; tests use a fresh one per run. */
  EVENTS_STREAM: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('BILLING_EVENTS'),
  /** Subjects of that stream: `<prefix>.<event type>`; streams must not overlap. */
  EVENTS_SUBJECT_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('events'),
  /**
   * Copies of the stream JetStream keeps, each on another server of the NATS cluster: 3 in
   * production (a publish is stored once 2 of the 3 have it, so one server may be down). An odd
   * number: R2 needs both copies for a quorum and so survives no loss. At most the cluster's
   * size; raised or lowered on a live stream at a service's start (docs/deployment.md, "NATS").
   */
  EVENTS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /**
   * The stream's size cap in bytes on each server; unset, it grows until max age. Reaching it
   * refuses publishes (EVENTS_STREAM_DISCARD `new`): the outbox keeps its rows unsent and the
   * relay tries again, so nothing is lost while an operator adds room.
   */
  EVENTS_STREAM_MAX_BYTES: z.coerce.number().int().min(1_048_576).optional(),
  /**
   * How long the stream keeps an event. A consumer that starts for the first time reads the
   * stream from its beginning (billing's copy of the merchants' sellers, docs/events-and-test-mode.md),
   * and a consumer may be away this long without losing events: at least a day.
   */
  EVENTS_STREAM_MAX_AGE_MS: z.coerce
    .number()
    .int()
    .min(86_400_000)
    .default(7 * 86_400_000),
  /**
   * What happens at EVENTS_STREAM_MAX_BYTES: `new` refuses the publish (nothing is lost; the
   * outbox holds the events), `old` drops the oldest events, delivered or not (lost silently).
   */
  EVENTS_STREAM_DISCARD: z.enum(['new', 'old']).default('new'),
  /** The NATS cluster (its `cluster.name`) the stream's copies are placed in; any when unset. */
  EVENTS_STREAM_PLACEMENT_CLUSTER: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional(),
  /** Server tags (comma-separated, e.g. `zone:a`) every server holding a copy must have; unset, any server. */
  EVENTS_STREAM_PLACEMENT_TAGS: z
    .string()
    .regex(/^[^\s,]+(,[^\s,]+)*$/, 'comma-separated tags without spaces')
    .transform((tags) => tags.split(','))
    .optional(),
});

export type NatsEnv = z.infer<typeof natsEnvSchema>;

/**
 * A gRPC server closes each connection after GRPC_MAX_CONNECTION_AGE_MS (GOAWAY), leaving calls
 * in flight GRPC_MAX_CONNECTION_AGE_GRACE_MS to finish; its clients then resolve the Service's
 * pods again, so replicas the autoscaler adds get their share of the calls.
 */
export const grpcServerEnvSchema = z.object({
  GRPC_MAX_CONNECTION_AGE_MS: z.coerce.number().int().min(1000).max(86_400_000).default(300_000),
  GRPC_MAX_CONNECTION_AGE_GRACE_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
});

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** Where a client reaches a gRPC service: host:port, or e.g. dns:///policy:50054 to balance over replicas. */
export const grpcTarget = (fallback: string) =>
  z.string().regex(/^\S+$/, `must be a gRPC target such as ${fallback}`).default(fallback);

export class ConfigError extends Error {}

/**
 * Parses the environment once. A bad value is a ConfigError naming every offending variable;
 * `loadConfigOrExit` turns that into a clear message and exit code 78 (EX_CONFIG).
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  // Empty strings mean "not set", as in most deployment tools.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const name = issue.path.join('.') || '(environment)';
      return `  ${name}: ${issue.message}${name in cleaned ? ` (got ${JSON.stringify(redactValue(name, cleaned[name]))})` : ''}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

export function loadConfigOrExit<S extends z.ZodType>(schema: S): z.infer<S> {
  try {
    return parseConfig(schema);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}

function redactValue(name: string, value: string | undefined): string | undefined {
  if (/SECRET|PASSWORD|TOKEN|KEY/i.test(name)) return '***';
  // A URL's credentials (DATABASE_URL, SMTP_URL) are never printed either.
  return value?.replace(/\/\/[^/@\s]*@/, '//***@');
}

/** "60000,300000" -> [60000, 300000]; used for the retry schedules of section 15. */
export const commaSeparatedIntegers = (count?: number) =>
  z.string().transform((raw, ctx) => {
    const parts = raw.split(',').map((p) => p.trim());
    const numbers = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : NaN));
    if (numbers.some((n) => !Number.isSafeInteger(n)) || (count !== undefined && numbers.length !== count)) {
      ctx.addIssue({
        code: 'custom',
        message: `must be ${count ?? 'a list of'} comma-separated non-negative integers`,
      });
      return z.NEVER;
    }
    return numbers;
  });

export const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .default('false')
  .transform((v) => v === 'true' || v === '1');
