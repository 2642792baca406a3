import type { Client } from '@grpc/grpc-js';
import type { ClientConstructor, PromiseClient } from '@billing/platform';
import { heavyPlatform, type ServiceName } from './platform-processes';
import type { PlatformUnderTest } from './start-platform';

/**
 * A promise client of one of a running platform's gRPC services (`Ctor`, from @billing/proto),
 * calling with the gateway's certificate as the gateway would: for tests that read what the REST
 * API does not show, or act as a caller the REST API does not reach.
 */
export async function platformClient<C extends Client>(
  platform: Pick<PlatformUnderTest, 'env' | 'grpcCredentials'>,
  service: 'identity' | 'billing' | 'catalog' | 'policy' | 'notification' | 'analytics',
  Ctor: ClientConstructor<C>,
  deadlineMs = 20_000,
): Promise<PromiseClient<C>> {
  const { createPromiseClient } = await heavyPlatform();
  const address = platform.env[`${service.toUpperCase()}_GRPC_URL`];
  return createPromiseClient(Ctor, address, deadlineMs, platform.grpcCredentials('gateway' satisfies ServiceName));
}
