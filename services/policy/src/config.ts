import { z } from 'zod';
import {
  baseEnvSchema,
  databaseEnvSchema,
  grpcServerEnvSchema,
  grpcTlsEnvSchema,
  loadConfigOrExit,
  port,
} from '@billing/platform';

// No NATS settings: policy emits no events (docs/api-behaviour.md §12 names none) and consumes none.
const policyEnvSchema = baseEnvSchema
  .extend(grpcTlsEnvSchema.shape)
  .extend(databaseEnvSchema.shape)
  .extend(grpcServerEnvSchema.shape)
  .extend({
    POLICY_GRPC_PORT: port(50054),
  });

export type PolicyConfig = z.infer<typeof policyEnvSchema>;

export const loadPolicyConfig = (): PolicyConfig => loadConfigOrExit(policyEnvSchema);
