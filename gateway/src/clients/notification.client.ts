import { createPromiseClient, type PromiseClient } from '@billing/platform';
import type { ChannelCredentials } from '@grpc/grpc-js';
import { notificationV1 } from '@billing/proto';

/** notification.v1 as promises; every call carries the configured deadline (DEADLINE_EXCEEDED -> 503). */
export type NotificationClient = PromiseClient<notificationV1.NotificationServiceClient>;

export function createNotificationClient(
  target: string,
  deadlineMs: number,
  channelCredentials: ChannelCredentials,
): NotificationClient {
  return createPromiseClient(notificationV1.NotificationServiceClient, target, deadlineMs, channelCredentials);
}
