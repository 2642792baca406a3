import type { z } from 'zod';
import { baseEnvSchema, databaseEnvSchema, loadConfigOrExit, natsEnvSchema, port } from '@billing/platform';

const catalogEnvSchema = baseEnvSchema
  .extend(databaseEnvSchema.shape)
  .extend(natsEnvSchema.shape)
  .extend({ CATALOG_GRPC_PORT: port(50052) });

export type CatalogConfig = z.infer<typeof catalogEnvSchema>;

export const loadCatalogConfig = (): CatalogConfig => loadConfigOrExit(catalogEnvSchema);
