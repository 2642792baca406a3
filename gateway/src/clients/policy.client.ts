import { createPromiseClient, type PromiseClient } from '@billing/platform';
import type { ChannelCredentials } from '@grpc/grpc-js';
import { policyV1 } from '@billing/proto';

/** policy.v1 as promises; every call carries the configured deadline (DEADLINE_EXCEEDED -> 503). */
export type PolicyClient = PromiseClient<policyV1.PolicyServiceClient>;

export function createPolicyClient(
  target: string,
  deadlineMs: number,
  channelCredentials: ChannelCredentials,
): PolicyClient {
  return createPromiseClient(policyV1.PolicyServiceClient, target, deadlineMs, channelCredentials);
}
