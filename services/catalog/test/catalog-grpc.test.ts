import { status } from '@grpc/grpc-js';
import { checkGrpcHealth, createPromiseClient, readRemoteError, type PromiseClient } from '@billing/platform';
import { catalogV1 } from '@billing/proto';
import { type SharedPlatform, sharedPlatform } from '@billing/testing';

/** The catalog process on its own, spoken to over real gRPC. */
describe('catalog gRPC service', () => {
  let platform: SharedPlatform;
  let catalog: PromiseClient<catalogV1.CatalogServiceClient>;
  let address: string;
  const scope = { projectId: '3f1c1a52-8d4e-4c57-9d0c-2c6f0e6f9a01', merchantId: 'm', livemode: false };

  beforeAll(async () => {
    platform = await sharedPlatform();
    address = platform.env.CATALOG_GRPC_URL;
    catalog = createPromiseClient(catalogV1.CatalogServiceClient, address, 5000, platform.grpcCredentials('gateway'));
  });
  afterAll(async () => {
    catalog?.close();
    await platform?.stop();
  });

  it('answers grpc.health.v1 Check for the server and for its service', async () => {
    expect(await checkGrpcHealth(address)).toBe('SERVING');
    expect(await checkGrpcHealth(address, 'catalog.v1.CatalogService')).toBe('SERVING');
  });

  it('refuses a request without a project scope instead of reading across tenants', async () => {
    const err = await catalog.listPlans({ page: { limit: 10, startingAfter: '' } }).catch((e) => e);
    expect(readRemoteError(err).code).toBe(status.INVALID_ARGUMENT);
  });

  it('reports NOT_FOUND for a malformed id rather than a database error', async () => {
    const err = await catalog.getPlan({ scope, planId: "1' OR '1'='1" }).catch((e) => e);
    expect(readRemoteError(err).code).toBe(status.NOT_FOUND);
  });
});
