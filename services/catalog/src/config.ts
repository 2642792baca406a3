import { z } from 'zod';
import {
  baseEnvSchema,
  databaseEnvSchema,
  grpcServerEnvSchema,
  grpcTlsEnvSchema,
  loadConfigOrExit,
  natsEnvSchema,
  port,
} from '@billing/platform';
import { paymentsEnvSchema } from '@billing/payments';

const catalogEnvSchema = baseEnvSchema
  .extend(grpcTlsEnvSchema.shape)
  .extend(databaseEnvSchema.shape)
  .extend(grpcServerEnvSchema.shape)
  .extend(natsEnvSchema.shape)
  .extend(paymentsEnvSchema.shape)
  .extend({
    CATALOG_GRPC_PORT: port(50052),
    /** The hosted checkout pages and the provider webhook; the gateway proxies to it. */
    CATALOG_HTTP_PORT: port(8082),
    BILLING_GRPC_URL: z
      .string()
      .regex(/^\S+$/, 'must be a gRPC target such as 127.0.0.1:50053')
      .default('127.0.0.1:50053'),
    GRPC_DEADLINE_MS: z.coerce.number().int().min(1).max(120_000).default(10_000),
    /** Public base address of the platform (the gateway): checkout_url and provider callbacks. */
    PUBLIC_URL: z.url({ protocol: /^https?$/ }).default('http://localhost:8080'),
    /** How often pending checkout sessions past their expiry are swept to EXPIRED. */
    CHECKOUT_EXPIRY_SWEEP_MS: z.coerce.number().int().min(50).max(3_600_000).default(30_000),
    /**
     * A payment still open at the provider (the payer on its page) this long after "Pay" keeps
     * its session from expiring; after that the session expires and a late payment is refunded.
     */
    CHECKOUT_PAYMENT_IN_FLIGHT_MS: z.coerce.number().int().min(0).max(86_400_000).default(3_600_000),
  })
  .transform((env) => ({ ...env, PUBLIC_URL: env.PUBLIC_URL.replace(/\/$/, '') }));

export type CatalogConfig = z.infer<typeof catalogEnvSchema>;

export const loadCatalogConfig = (): CatalogConfig => loadConfigOrExit(catalogEnvSchema);
