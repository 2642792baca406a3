import { createPromiseClient, type PromiseClient } from '@billing/platform';
import type { ChannelCredentials } from '@grpc/grpc-js';
import { portalV1 } from '@billing/proto';

/** portal.v1 as promises; every call carries the configured deadline (DEADLINE_EXCEEDED -> 503). */
export type PortalClient = PromiseClient<portalV1.PortalServiceClient>;

export function createPortalClient(
  target: string,
  deadlineMs: number,
  channelCredentials: ChannelCredentials,
): PortalClient {
  return createPromiseClient(portalV1.PortalServiceClient, target, deadlineMs, channelCredentials);
}
