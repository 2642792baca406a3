import { z } from 'zod';
import { baseEnvSchema, databaseEnvSchema, loadConfigOrExit, port } from '@billing/platform';
import { DEFAULT_SANDBOX_SECRET_KEY, paymentsEnvSchema } from '@billing/payments';

const httpUrl = z.url({ protocol: /^https?$/ });

const sandboxEnvSchema = baseEnvSchema
  .extend(databaseEnvSchema.shape)
  .extend({
    SANDBOX_PROVIDER_PORT: port(8090),
    /** Base of the `authorization_url` a payer's browser opens; defaults to this process's own address. */
    SANDBOX_PUBLIC_URL: httpUrl.optional(),
    /** Required as `Bearer` on every API call; also signs the webhooks. Same variable the platform's clients read. */
    SANDBOX_SECRET_KEY: paymentsEnvSchema.shape.SANDBOX_SECRET_KEY,
    /** Where `charge.success` webhooks go (the gateway's inbound provider webhook); unset sends none. */
    SANDBOX_WEBHOOK_URL: httpUrl.optional(),
    /**
     * How long each API call (charge, verify, refund, customer) takes, give or take 10%, as a real
     * provider's would: benchmarks use 500. 0 answers at once.
     */
    SANDBOX_LATENCY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  })
  .superRefine((env, ctx) => {
    // Everyone knows the default key; in production it would let anyone sign test-mode webhooks.
    if (env.NODE_ENV === 'production' && env.SANDBOX_SECRET_KEY === DEFAULT_SANDBOX_SECRET_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['SANDBOX_SECRET_KEY'],
        message: 'must be set to a private value in production',
      });
    }
  })
  .transform((env) => ({
    ...env,
    SANDBOX_PUBLIC_URL: (env.SANDBOX_PUBLIC_URL ?? `http://127.0.0.1:${env.SANDBOX_PROVIDER_PORT}`).replace(/\/+$/, ''),
  }));

export type SandboxConfig = z.infer<typeof sandboxEnvSchema>;

export const loadSandboxConfig = (): SandboxConfig => loadConfigOrExit(sandboxEnvSchema);
