import { isIP } from 'node:net';
import { z } from 'zod';
import {
  baseEnvSchema,
  grpcTlsEnvSchema,
  databaseEnvSchema,
  grpcTarget,
  loadConfigOrExit,
  natsEnvSchema,
  port,
} from '@billing/platform';

const milliseconds = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

const PROXY_ADDR_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One entry of TRUSTED_PROXIES: an address, an address/prefix, or a name proxy-addr knows. */
function isTrustedProxy(item: string): boolean {
  if (PROXY_ADDR_NAMES.has(item)) return true;
  const [address, prefix, extra] = item.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d{1,3}$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

/** A request budget: a positive whole number (tests and benchmarks raise them far up). */
const perPeriod = (fallback: number) => z.coerce.number().int().min(1).max(10_000_000).default(fallback);

const gatewayEnvSchema = baseEnvSchema
  .extend(grpcTlsEnvSchema.shape)
  .extend(databaseEnvSchema.shape)
  .extend(natsEnvSchema.shape)
  .extend({
    PORT: port(8080),
    /** Public base address (OpenAPI `servers`, and later checkout URLs); defaults to localhost:PORT. */
    PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    /**
     * The proxies in front of the gateway whose X-Forwarded-For it believes (docs/rate-limits.md):
     * comma-separated addresses, CIDR ranges or proxy-addr's names (loopback, linklocal,
     * uniquelocal). Empty: none, so a client's address is the connection's and a forged header
     * changes nothing.
     */
    TRUSTED_PROXIES: z
      .string()
      .default('')
      .transform((text) =>
        text
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      )
      .refine((items) => items.every(isTrustedProxy), {
        message: 'must be addresses, CIDR ranges or loopback / linklocal / uniquelocal, comma-separated',
      }),
    /** A gRPC target: host:port, or e.g. dns:///identity:50051 to balance over every replica. */
    IDENTITY_GRPC_URL: z
      .string()
      .regex(/^\S+$/, 'must be a gRPC target such as 127.0.0.1:50051')
      .default('127.0.0.1:50051'),
    CATALOG_GRPC_URL: z
      .string()
      .regex(/^\S+$/, 'must be a gRPC target such as 127.0.0.1:50052')
      .default('127.0.0.1:50052'),
    BILLING_GRPC_URL: z
      .string()
      .regex(/^\S+$/, 'must be a gRPC target such as 127.0.0.1:50053')
      .default('127.0.0.1:50053'),
    POLICY_GRPC_URL: z
      .string()
      .regex(/^\S+$/, 'must be a gRPC target such as 127.0.0.1:50054')
      .default('127.0.0.1:50054'),
    NOTIFICATION_GRPC_URL: z
      .string()
      .regex(/^\S+$/, 'must be a gRPC target such as 127.0.0.1:50055')
      .default('127.0.0.1:50055'),
    /** documents.v1: the PDFs of GET /invoices/{id}/pdf and GET /credit-notes/{id}/pdf. */
    DOCUMENTS_GRPC_URL: grpcTarget('127.0.0.1:50056'),
    /** portal.v1: the customer portal's configuration and sessions (docs/api-behaviour.md §24). */
    PORTAL_GRPC_URL: grpcTarget('127.0.0.1:50057'),
    /** analytics.v1: the read model behind /analytics/* (docs/api-behaviour.md §25). */
    ANALYTICS_GRPC_URL: grpcTarget('127.0.0.1:50058'),
    /** catalog's HTTP side (hosted checkout pages, provider webhook), proxied as is. */
    CATALOG_HTTP_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8082'),
    /** documents' HTTP side (hosted invoice pages, the PDFs of their links), proxied as is. */
    DOCUMENTS_HTTP_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8083'),
    /** The portal's HTTP side (the customer portal pages, /portal/*), proxied as is. */
    PORTAL_HTTP_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8084'),
    /** Deadline of every gRPC call; past it the request is answered 503. */
    GRPC_DEADLINE_MS: milliseconds(5000, 1, 120_000),
    /** Check every response body against its published schema (on by default in tests). */
    CHECK_RESPONSES: z.enum(['true', 'false']).optional(),
    /** How long a verified API key is trusted without asking identity again (0 = always ask). */
    API_KEY_CACHE_TTL_MS: milliseconds(5000, 0, 300_000),
    /**
     * How long a GET /plans/{id} answer may be served from this replica's cache (0 = never
     * cached). Catalog's announcements drop entries at once; this only bounds what a missed
     * one could cost (docs/decisions.md, "Plan reads cached in the gateway").
     */
    PLAN_CACHE_TTL_MS: milliseconds(5000, 0, 300_000),
    /**
     * How long a request holds its Idempotency-Key while it runs; past it (the replica died
     * mid-request) a retry with the same body may run it again.
     */
    IDEMPOTENCY_LOCK_MS: milliseconds(60_000, 1000, 3_600_000),
    /** Rate-limit counters shared by every replica (docs/rate-limits.md). */
    REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
    /** Prefix of every rate-limit key in Redis, so several platforms (test runs) can share one server. */
    REDIS_KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, _ . or -')
      .default('billing'),
    /** Sustained requests per second per API key (a burst may reach twice this). */
    RATE_LIMIT_LIVE_PER_SECOND: perPeriod(100),
    RATE_LIMIT_TEST_PER_SECOND: perPeriod(25),
    /** Failed logins per email per 15 minutes; further attempts are refused until the window ends. */
    LOGIN_FAILURES_PER_15_MIN: perPeriod(10),
    /** Requests to /api/v1/auth/* per client address per minute. */
    AUTH_REQUESTS_PER_MINUTE_PER_ADDRESS: perPeriod(60),
    /** Requests to the customer portal pages (/portal/*) per client address per minute. */
    PORTAL_REQUESTS_PER_MINUTE_PER_ADDRESS: perPeriod(120),
    /**
     * The merchant dashboard's sessions (docs/decisions.md, "Dashboard sessions"): one ends after
     * this long without a request, and this long after its sign-in whatever happens.
     */
    DASHBOARD_SESSION_IDLE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(1800),
    DASHBOARD_SESSION_MAX_SECONDS: z.coerce.number().int().min(1).max(2_592_000).default(43_200),
  })
  .transform((env) => ({
    ...env,
    PUBLIC_URL: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, ''),
    CHECK_RESPONSES: env.CHECK_RESPONSES ? env.CHECK_RESPONSES === 'true' : env.NODE_ENV === 'test',
  }));

export type GatewayConfig = z.infer<typeof gatewayEnvSchema>;

export const loadGatewayConfig = (): GatewayConfig => loadConfigOrExit(gatewayEnvSchema);
