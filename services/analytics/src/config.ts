import { z } from 'zod';
import {
  baseEnvSchema,
  databaseEnvSchema,
  eventConsumerEnvSchema,
  grpcServerEnvSchema,
  grpcTarget,
  grpcTlsEnvSchema,
  loadConfigOrExit,
  natsEnvSchema,
  port,
} from '@billing/platform';

export const analyticsEnvSchema = baseEnvSchema
  .extend(grpcTlsEnvSchema.shape)
  .extend(databaseEnvSchema.shape)
  .extend(grpcServerEnvSchema.shape)
  .extend(natsEnvSchema.shape)
  .extend(eventConsumerEnvSchema.shape)
  .extend({
    ANALYTICS_GRPC_PORT: port(50058),
    /** The rebuild (npm run analytics:rebuild) reads billing's history of analytics events. */
    BILLING_GRPC_URL: grpcTarget('127.0.0.1:50053'),
    /** Deadline of every gRPC call analytics makes: a ListAnalyticsEvents page of the rebuild. */
    GRPC_DEADLINE_MS: z.coerce.number().int().min(1).max(120_000).default(10_000),
  });

export type AnalyticsConfig = z.infer<typeof analyticsEnvSchema>;

export const loadAnalyticsConfig = (): AnalyticsConfig => loadConfigOrExit(analyticsEnvSchema);
