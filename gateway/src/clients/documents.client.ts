import { createPromiseClient, type PromiseClient } from '@billing/platform';
import type { ChannelCredentials } from '@grpc/grpc-js';
import { documentsV1 } from '@billing/proto';

/** documents.v1 as promises; every call carries the configured deadline (DEADLINE_EXCEEDED -> 503). */
export type DocumentsClient = PromiseClient<documentsV1.DocumentsServiceClient>;

export function createDocumentsClient(
  target: string,
  deadlineMs: number,
  channelCredentials: ChannelCredentials,
): DocumentsClient {
  return createPromiseClient(documentsV1.DocumentsServiceClient, target, deadlineMs, channelCredentials);
}
