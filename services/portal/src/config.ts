import { z } from 'zod';
import {
  baseEnvSchema,
  databaseEnvSchema,
  grpcServerEnvSchema,
  grpcTarget,
  grpcTlsEnvSchema,
  loadConfigOrExit,
  port,
} from '@billing/platform';

const seconds = (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback);

// No NATS: the portal emits no events of its own. What its actions change is billing's, and
// billing's use cases send the events and webhooks (docs/decisions.md, "The customer portal: a
// service of its own").
const portalEnvSchema = baseEnvSchema
  .extend(grpcTlsEnvSchema.shape)
  .extend(databaseEnvSchema.shape)
  .extend(grpcServerEnvSchema.shape)
  .extend({
    /** portal.v1 (the configuration and the sessions the API creates with an API key). */
    PORTAL_GRPC_PORT: port(50057),
    /** The portal pages (/portal/*); the gateway proxies to it. */
    PORTAL_HTTP_PORT: port(8084),
    BILLING_GRPC_URL: grpcTarget('127.0.0.1:50053'),
    CATALOG_GRPC_URL: grpcTarget('127.0.0.1:50052'),
    IDENTITY_GRPC_URL: grpcTarget('127.0.0.1:50051'),
    /** Deadline of every gRPC call the portal makes (DEADLINE_EXCEEDED: a 503 page or answer). */
    GRPC_DEADLINE_MS: z.coerce.number().int().min(1).max(120_000).default(10_000),
    /** Public base address of the platform (the gateway): the session URLs and the provider's way back. */
    PUBLIC_URL: z.url({ protocol: /^https?$/ }).default('http://localhost:8080'),
    /**
     * The keys of the entry links customer emails carry (PortalLinks of @billing/platform), comma
     * separated: the first is the one notification signs with, every one is accepted.
     */
    PORTAL_LINKS_KEY: z
      .string()
      .transform((value) => value.split(',').map((key) => key.trim()))
      .pipe(z.array(z.string().min(32, 'every key must be at least 32 characters')).min(1)),
    /** How long a session URL opens the portal after it was created (docs/api-behaviour.md §24: 10 minutes). */
    PORTAL_LINK_TTL_SECONDS: seconds(600, 86_400),
    /** How long a browser session lasts without a request (§24: 1 hour of inactivity). */
    PORTAL_IDLE_TTL_SECONDS: seconds(3600, 86_400),
    /** How often sessions that can never be used again are deleted. */
    PORTAL_SESSION_PURGE_MS: z.coerce.number().int().min(100).max(86_400_000).default(600_000),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && env.PORTAL_LINKS_KEY.some((key) => key.startsWith('dev-'))) {
      ctx.addIssue({
        code: 'custom',
        message: 'is a development key (dev- prefix); set a random one in production',
        path: ['PORTAL_LINKS_KEY'],
      });
    }
  })
  .transform((env) => ({ ...env, PUBLIC_URL: env.PUBLIC_URL.replace(/\/$/, '') }));

export type PortalConfig = z.infer<typeof portalEnvSchema>;

export const loadPortalConfig = (): PortalConfig => loadConfigOrExit(portalEnvSchema);
