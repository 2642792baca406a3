import { createPromiseClient, type PromiseClient } from '@billing/platform';
import type { ChannelCredentials } from '@grpc/grpc-js';
import { catalogV1 } from '@billing/proto';

/** catalog.v1 as promises; every call carries the configured deadline (DEADLINE_EXCEEDED -> 503). */
export type CatalogClient = PromiseClient<catalogV1.CatalogServiceClient>;

export function createCatalogClient(
  target: string,
  deadlineMs: number,
  channelCredentials: ChannelCredentials,
): CatalogClient {
  return createPromiseClient(catalogV1.CatalogServiceClient, target, deadlineMs, channelCredentials);
}
