import { createPromiseClient, type PromiseClient } from '@billing/platform';
import type { ChannelCredentials } from '@grpc/grpc-js';
import { analyticsV1 } from '@billing/proto';

/** analytics.v1 as promises; every call carries the configured deadline (DEADLINE_EXCEEDED -> 503). */
export type AnalyticsClient = PromiseClient<analyticsV1.AnalyticsServiceClient>;

export function createAnalyticsClient(
  target: string,
  deadlineMs: number,
  channelCredentials: ChannelCredentials,
): AnalyticsClient {
  return createPromiseClient(analyticsV1.AnalyticsServiceClient, target, deadlineMs, channelCredentials);
}
