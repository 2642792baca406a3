import { z } from 'zod';
import {
  baseEnvSchema,
  grpcTlsEnvSchema,
  booleanFlag,
  commaSeparatedIntegers,
  databaseEnvSchema,
  eventConsumerEnvSchema,
  grpcServerEnvSchema,
  loadConfigOrExit,
  natsEnvSchema,
  port,
} from '@billing/platform';

/** Known to everyone, so refused in production: only for local development and tests. */
export const DEVELOPMENT_WEBHOOK_SECRETS_KEY = Buffer.alloc(32, 'development-webhook-secrets-key').toString('base64');

const notificationEnvSchema = baseEnvSchema
  .extend(grpcTlsEnvSchema.shape)
  .extend(databaseEnvSchema.shape)
  .extend(grpcServerEnvSchema.shape)
  .extend(natsEnvSchema.shape)
  .extend(eventConsumerEnvSchema.shape)
  .extend({
    NOTIFICATION_GRPC_PORT: port(50055),
    /** The four waits after failed attempts 1 to 4 (docs/api-behaviour.md §12: 1 min, 5 min, 30 min, 2 h). */
    WEBHOOK_RETRY_DELAYS_MS: commaSeparatedIntegers(4).default([60_000, 300_000, 1_800_000, 7_200_000]),
    /** One attempt, answer included. */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** How often a worker looks for due deliveries besides being woken by new ones. */
    DELIVERY_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(250),
    /** Development only: http URLs and loopback/private addresses are allowed (docs/api-behaviour.md §12). */
    ALLOW_INSECURE_WEBHOOKS: booleanFlag,
    /** Base64 of 32 bytes: encrypts the webhook signing secrets at rest (AES-256-GCM). */
    WEBHOOK_SECRETS_KEY: z
      .string()
      .default(DEVELOPMENT_WEBHOOK_SECRETS_KEY)
      .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be base64 of 32 bytes'),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && env.WEBHOOK_SECRETS_KEY === DEVELOPMENT_WEBHOOK_SECRETS_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEBHOOK_SECRETS_KEY'],
        message: 'the development key cannot be used in production',
      });
    }
    if (env.NODE_ENV === 'production' && env.ALLOW_INSECURE_WEBHOOKS) {
      ctx.addIssue({
        code: 'custom',
        path: ['ALLOW_INSECURE_WEBHOOKS'],
        message: 'insecure webhooks are for development only',
      });
    }
  });

export type NotificationConfig = z.infer<typeof notificationEnvSchema>;

export const loadNotificationConfig = (): NotificationConfig => loadConfigOrExit(notificationEnvSchema);
