import type { z } from 'zod';
import { baseEnvSchema, databaseEnvSchema, loadConfigOrExit, natsEnvSchema, port } from '@billing/platform';
import { paymentsEnvSchema } from '@billing/payments';

const billingEnvSchema = baseEnvSchema
  .extend(databaseEnvSchema.shape)
  .extend(natsEnvSchema.shape)
  .extend(paymentsEnvSchema.shape)
  .extend({ BILLING_GRPC_PORT: port(50053) });

export type BillingConfig = z.infer<typeof billingEnvSchema>;

export const loadBillingConfig = (): BillingConfig => loadConfigOrExit(billingEnvSchema);
