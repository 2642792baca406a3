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
  grpcTarget,
  natsEnvSchema,
  port,
} from '@billing/platform';

/** Known to everyone, so refused in production: only for local development and tests. */
export const DEVELOPMENT_WEBHOOK_SECRETS_KEY = Buffer.alloc(32, 'development-webhook-secrets-key').toString('base64');

export const notificationEnvSchema = baseEnvSchema
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
    /**
     * The ports a webhook URL may name (443 when it names none): those notification's egress
     * NetworkPolicy lets out (k8s/base/network-policies.yaml), so a URL that could never be
     * delivered to is refused at registration rather than failing quietly.
     */
    WEBHOOK_PORTS: z
      .string()
      .default('443')
      .transform((text) => text.split(',').map((item) => item.trim()))
      .refine((items) => items.every((item) => /^\d{1,5}$/.test(item) && Number(item) >= 1 && Number(item) <= 65535), {
        message: 'must be TCP ports, comma-separated',
      })
      .transform((items) => items.map(Number)),
    /** Base64 of 32 bytes: encrypts the webhook signing secrets at rest (AES-256-GCM). */
    WEBHOOK_SECRETS_KEY: z
      .string()
      .default(DEVELOPMENT_WEBHOOK_SECRETS_KEY)
      .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be base64 of 32 bytes'),
    /** Customer emails read the customer and the invoice from billing (docs/api-behaviour.md §24). */
    BILLING_GRPC_URL: grpcTarget('127.0.0.1:50053'),
    /** Deadline of every gRPC call notification makes. */
    GRPC_DEADLINE_MS: z.coerce.number().int().min(1).max(120_000).default(10_000),
    /** Public base address of the platform: the portal links customer emails carry. */
    PUBLIC_URL: z
      .url({ protocol: /^https?$/ })
      .default('http://localhost:8080')
      .transform((url) => url.replace(/\/$/, '')),
    /**
     * The keys that sign the portal links of customer emails (packages/platform/src/portal-links.ts),
     * comma-separated, each at least 32 characters: the first signs. Required in production; unset
     * in development, a payment_failed email cannot be written and waits, QUEUED.
     */
    PORTAL_LINKS_KEY: z
      .string()
      .transform((value) => value.split(',').map((key) => key.trim()))
      .pipe(z.array(z.string().min(32, 'every key must be at least 32 characters')).min(1))
      .optional(),
    /** smtp://host:port (or smtps://user:pass@host:465): where customer emails go. Unset: they stay QUEUED. */
    SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
    /** The From address of customer emails (its name is the settings' from_name). */
    EMAIL_FROM_ADDRESS: z.email().default('no-reply@billing.localhost'),
    /** The waits after failed attempts, in turn, the last one repeated: an SMTP outage is waited out. */
    EMAIL_RETRY_DELAYS_MS: commaSeparatedIntegers().default([60_000, 300_000, 1_800_000, 7_200_000]),
    /** Each SMTP wait (connection, greeting, every reply). */
    EMAIL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(20_000),
    /** How often the email loop looks for due emails besides being woken by new ones. */
    EMAIL_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
    /**
     * Test-only fault injection: notification SIGKILLs itself right after the SMTP server accepted
     * an email and before it is recorded SENT (docs/decisions.md, "Customer emails"). Refused in production.
     */
    NOTIFICATION_TEST_CRASH_AFTER_EMAIL_SENT: booleanFlag,
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && env.WEBHOOK_SECRETS_KEY === DEVELOPMENT_WEBHOOK_SECRETS_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEBHOOK_SECRETS_KEY'],
        message: 'the development key cannot be used in production',
      });
    }
    if (env.NODE_ENV === 'production' && env.NOTIFICATION_TEST_CRASH_AFTER_EMAIL_SENT) {
      ctx.addIssue({
        code: 'custom',
        path: ['NOTIFICATION_TEST_CRASH_AFTER_EMAIL_SENT'],
        message: 'is a test-only fault injection and cannot be set in production',
      });
    }
    if (env.NODE_ENV === 'production' && !env.PORTAL_LINKS_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['PORTAL_LINKS_KEY'],
        message: 'is required in production (the portal links of customer emails)',
      });
    }
    if (env.NODE_ENV === 'production' && env.PORTAL_LINKS_KEY?.some((key) => key.startsWith('dev-'))) {
      ctx.addIssue({
        code: 'custom',
        path: ['PORTAL_LINKS_KEY'],
        message: 'is a development key (dev- prefix); set a random one in production',
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
