import { createPromiseClient, type PromiseClient } from '@billing/platform';
import type { ChannelCredentials } from '@grpc/grpc-js';
import { billingV1 } from '@billing/proto';

/** billing.v1 as promises; every call carries the configured deadline (DEADLINE_EXCEEDED -> 503). */
export type BillingClient = PromiseClient<billingV1.BillingServiceClient>;

export function createBillingClient(
  target: string,
  deadlineMs: number,
  channelCredentials: ChannelCredentials,
): BillingClient {
  return createPromiseClient(billingV1.BillingServiceClient, target, deadlineMs, channelCredentials);
}
