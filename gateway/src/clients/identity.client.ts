import { createPromiseClient, type PromiseClient } from '@billing/platform';
import { identityV1 } from '@billing/proto';

/** identity.v1 as promises; every call carries the configured deadline (DEADLINE_EXCEEDED -> 503). */
export type IdentityClient = PromiseClient<identityV1.IdentityServiceClient>;

export function createIdentityClient(target: string, deadlineMs: number): IdentityClient {
  return createPromiseClient(identityV1.IdentityServiceClient, target, deadlineMs);
}
