import { createPromiseClient, type PromiseClient } from '@billing/platform';
import type { ChannelCredentials } from '@grpc/grpc-js';
import { identityV1 } from '@billing/proto';

/** identity.v1 as promises; every call carries the configured deadline (DEADLINE_EXCEEDED -> 503). */
export type IdentityClient = PromiseClient<identityV1.IdentityServiceClient>;

export function createIdentityClient(
  target: string,
  deadlineMs: number,
  channelCredentials: ChannelCredentials,
): IdentityClient {
  return createPromiseClient(identityV1.IdentityServiceClient, target, deadlineMs, channelCredentials);
}
