import { checkGrpcHealth, createPromiseClient, readRemoteError, type PromiseClient } from '@billing/platform';
import { identityV1 } from '@billing/proto';
import { status } from '@grpc/grpc-js';
import { type SharedPlatform, sharedPlatform } from '@billing/testing';

/** The identity process on its own, spoken to over real gRPC. */
describe('identity gRPC service', () => {
  let platform: SharedPlatform;
  let identity: PromiseClient<identityV1.IdentityServiceClient>;
  let address: string;

  beforeAll(async () => {
    platform = await sharedPlatform();
    address = platform.env.IDENTITY_GRPC_URL;
    identity = createPromiseClient(
      identityV1.IdentityServiceClient,
      address,
      // Five concurrent registrations are five password hashes (about 1 s each, unloaded): on a
      // busy machine the last one answers well after 5 s, and a deadline is not what is tested.
      30_000,
      platform.grpcCredentials('gateway'),
    );
  });
  afterAll(async () => {
    identity?.close();
    await platform?.stop();
  });

  it('answers grpc.health.v1 Check for the server and for its service', async () => {
    expect(await checkGrpcHealth(address)).toBe('SERVING');
    expect(await checkGrpcHealth(address, 'identity.v1.IdentityService')).toBe('SERVING');
  });

  it('reports field violations as INVALID_ARGUMENT with the 422 items in metadata', async () => {
    const err = await identity
      .registerMerchant({ email: 'nope', businessName: 'X', password: 'short' })
      .catch((e) => e);
    const remote = readRemoteError(err);
    expect(remote.code).toBe(status.INVALID_ARGUMENT);
    expect(remote.violations).toEqual([
      { loc: ['body', 'email'], msg: 'value is not a valid email address', type: 'value_error', input: 'nope' },
      {
        loc: ['body', 'password'],
        msg: 'String should have at least 8 characters',
        type: 'string_too_short',
        ctx: { min_length: 8 },
      },
    ]);
  });

  it('lets exactly one of many concurrent registrations of one email win', async () => {
    const email = `race-${Date.now()}@example.com`;
    const attempts = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) =>
        identity.registerMerchant({
          email: i % 2 ? email.toUpperCase() : email,
          businessName: 'Race',
          password: 'password123',
        }),
      ),
    );
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    for (const a of attempts.filter((a) => a.status === 'rejected')) {
      expect(readRemoteError((a as PromiseRejectedResult).reason).code).toBe(status.ALREADY_EXISTS);
    }
  });

  it('writes an api_key.revoked event to its outbox in the revocation transaction', async () => {
    const reg = await identity.registerMerchant({
      email: `outbox-${Date.now()}@example.com`,
      businessName: 'Outbox Ltd',
      password: 'password123',
    });
    const key = reg.apiKeys[0];
    await identity.revokeApiKey({ merchantId: reg.merchant!.id, apiKeyId: key.id });
    const { queryDatabase } = await import('@billing/testing');
    const rows = await queryDatabase<{ event_type: string; payload: { data: { api_key_id: string } } }>(
      platform.database('identity'),
      `SELECT event_type, payload FROM outbox_events WHERE event_type = 'api_key.revoked'`,
    );
    expect(rows.map((r) => r.payload.data.api_key_id)).toContain(key.id);
    const err = await identity.verifyApiKey({ key: key.key }).catch((e) => e);
    expect(readRemoteError(err).code).toBe(status.UNAUTHENTICATED);
  });

  /** A new merchant (and its first project), registered as the gateway does. */
  const register = (label: string, businessName: string) =>
    identity.registerMerchant({ email: `${label}-${Date.now()}@example.com`, businessName, password: 'password123' });

  it('refuses seller details that bypass the gateway: INVALID_ARGUMENT with every violation, nothing saved', async () => {
    const merchantId = (await register('seller-rules', 'Seller Rules Ltd')).merchant!.id;

    const err = await identity
      .updateMerchant({
        merchantId,
        legalName: 'x'.repeat(101),
        address: { line1: ' ', city: 'Lagos', country: 'XX' },
        supportEmail: 'billing at example',
        invoiceFooter: 'Thanks',
        clearedFields: ['invoice_footer', 'business_name'],
      })
      .catch((e) => e);

    const remote = readRemoteError(err);
    expect(remote.code).toBe(status.INVALID_ARGUMENT);
    expect(remote.violations.map((v) => [v.loc, v.type])).toEqual([
      [['body', 'legal_name'], 'string_too_long'],
      [['body', 'address', 'line1'], 'string_too_short'],
      [['body', 'address', 'country'], 'value_error'],
      [['body', 'support_email'], 'value_error'],
      [['body', 'invoice_footer'], 'value_error'],
      [['body', 'business_name'], 'value_error'],
    ]);
    const { merchant } = await identity.getMerchant({ merchantId });
    expect(merchant).toMatchObject({ businessName: 'Seller Rules Ltd' });
    expect(merchant?.legalName).toBeUndefined();
    expect(merchant?.invoiceFooter).toBeUndefined();
  });

  it("answers a project's seller as of the merchant's last change, a deactivated merchant's too; NOT_FOUND for no such project", async () => {
    const reg = await register('project-seller', 'Seller Of Projects Ltd');
    const merchantId = reg.merchant!.id;
    await identity.updateMerchant({
      merchantId,
      legalName: 'Seller Of Projects Limited',
      taxId: 'TIN-5',
      clearedFields: [],
    });
    await identity.deactivateMerchant({ merchantId });

    const answer = await identity.getProjectSeller({ projectId: reg.project!.id });

    expect(answer).toEqual({
      merchantId,
      seller: {
        name: 'Seller Of Projects Limited',
        legalName: 'Seller Of Projects Limited',
        businessName: 'Seller Of Projects Ltd',
        taxId: 'TIN-5',
      },
      updatedAt: expect.any(Date),
    });
    for (const projectId of ['3f1c0a52-6d2b-4e8e-9a7f-0c5d1e2b3a44', 'not-an-id']) {
      const err = await identity.getProjectSeller({ projectId }).catch((e) => e);
      expect(readRemoteError(err)).toMatchObject({ code: status.NOT_FOUND, detail: 'Project not found' });
    }
  });
});
