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
import { PRODUCTION_SCRYPT_COST } from './domain/password';

export const identityEnvSchema = baseEnvSchema
  .extend(grpcTlsEnvSchema.shape)
  .extend(databaseEnvSchema.shape)
  .extend(grpcServerEnvSchema.shape)
  .extend(natsEnvSchema.shape)
  .extend({
    IDENTITY_GRPC_PORT: port(50051),
    /** Signs access tokens. Required in production; `npm start` generates one for development. */
    JWT_SECRET: z.string().min(32, 'must be at least 32 characters'),
    JWT_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 3600)
      .default(3600),
    /** Password hashings that may wait for one of the two hashing slots; one more is refused with 429. */
    PASSWORD_HASH_QUEUE_LENGTH: z.coerce.number().int().min(0).max(10_000).default(4),
    /**
     * log2 of scrypt's N for new password hashes. Below 17 (OWASP's minimum) only with
     * NODE_ENV=test: the suite registers hundreds of merchants and is not about hashing's cost.
     */
    PASSWORD_SCRYPT_COST: z.coerce.number().int().min(10).max(20).default(PRODUCTION_SCRYPT_COST),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && env.JWT_SECRET.startsWith('dev-')) {
      ctx.addIssue({
        code: 'custom',
        path: ['JWT_SECRET'],
        message: 'a generated development secret cannot be used in production',
      });
    }
    if (env.NODE_ENV !== 'test' && env.PASSWORD_SCRYPT_COST < PRODUCTION_SCRYPT_COST) {
      ctx.addIssue({
        code: 'custom',
        path: ['PASSWORD_SCRYPT_COST'],
        message: `must be at least ${PRODUCTION_SCRYPT_COST} unless NODE_ENV=test`,
      });
    }
  });

export type IdentityConfig = z.infer<typeof identityEnvSchema>;

export const loadIdentityConfig = (): IdentityConfig => loadConfigOrExit(identityEnvSchema);
