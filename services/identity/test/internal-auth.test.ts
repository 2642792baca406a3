import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, status, type ChannelCredentials, type ServiceError } from '@grpc/grpc-js';
import {
  checkGrpcHealth,
  ConfigError,
  createLogger,
  createPromiseClient,
  grpcTransport,
  readRemoteError,
} from '@billing/platform';
import { createDevelopmentCertificates, serviceTlsFiles } from '@billing/platform/dev-tls';
import { billingV1, identityV1 } from '@billing/proto';
import { channelCredentialsFrom, type SharedPlatform, sharedPlatform } from '@billing/testing';

/**
 * Internal authentication (docs/decisions.md, "Internal authentication"): a real identity
 * process under mutual TLS, called with every kind of wrong credential and with the right one;
 * and billing, which documents, notification and portal may call for some methods only.
 */
describe('gRPC internal authentication', () => {
  let platform: SharedPlatform;
  let address: string;
  let strangerCertificates: string;

  beforeAll(async () => {
    platform = await sharedPlatform();
    address = platform.env.IDENTITY_GRPC_URL;
    strangerCertificates = await mkdtemp(join(tmpdir(), 'billing-stranger-tls-'));
    await createDevelopmentCertificates(strangerCertificates, ['gateway']);
  });
  afterAll(async () => {
    await platform?.stop();
    if (strangerCertificates) await rm(strangerCertificates, { recursive: true, force: true });
  });

  const registration = (label: string) => ({
    email: `internal-auth-${label}-${Date.now()}@example.com`,
    businessName: 'Internal Auth Ltd',
    password: 'password123',
  });

  async function registerAs(channelCredentials: ChannelCredentials, email: string) {
    const identity = createPromiseClient(identityV1.IdentityServiceClient, address, 20_000, channelCredentials);
    try {
      return await identity.registerMerchant({ ...registration('x'), email });
    } finally {
      identity.close();
    }
  }

  async function refusal(channelCredentials: ChannelCredentials, email: string) {
    const err = await registerAs(channelCredentials, email).then(
      () => new Error('the call was not refused') as ServiceError,
      (e: ServiceError) => e,
    );
    return readRemoteError(err);
  }

  it('refuses a plaintext call with UNAUTHENTICATED', async () => {
    const refused = await refusal(credentials.createInsecure(), registration('plaintext').email);
    expect(refused.code).toBe(status.UNAUTHENTICATED);
  });

  it('refuses a TLS call without a client certificate with UNAUTHENTICATED', async () => {
    const ca = readFileSync(platform.tlsFiles('gateway').GRPC_TLS_CA_FILE);
    const refused = await refusal(credentials.createSsl(ca), registration('no-cert').email);
    expect(refused.code).toBe(status.UNAUTHENTICATED);
  });

  it('refuses a certificate naming the gateway but signed by another CA with UNAUTHENTICATED', async () => {
    const stranger = serviceTlsFiles(strangerCertificates, 'gateway');
    const impostor = channelCredentialsFrom({
      ...stranger,
      // It trusts the platform's server; the server must not trust it back.
      GRPC_TLS_CA_FILE: platform.tlsFiles('gateway').GRPC_TLS_CA_FILE,
    });
    const refused = await refusal(impostor, registration('other-ca').email);
    expect(refused.code).toBe(status.UNAUTHENTICATED);
  });

  it('refuses a valid certificate of a service that may not call identity with PERMISSION_DENIED', async () => {
    const email = registration('catalog').email;
    const refused = await refusal(platform.grpcCredentials('catalog'), email);
    expect(refused.code).toBe(status.PERMISSION_DENIED);
    expect(refused.detail).toContain('catalog may not call identity.v1.IdentityService');

    // Nothing was done: the rightful caller registers that same email afterwards.
    const registered = await registerAs(platform.grpcCredentials('gateway'), email);
    expect(registered.merchant?.email).toBe(email);
  });

  it("lets documents call billing's reading methods only: a credit note asked with its certificate is PERMISSION_DENIED", async () => {
    const billing = createPromiseClient(
      billingV1.BillingServiceClient,
      platform.env.BILLING_GRPC_URL,
      20_000,
      platform.grpcCredentials('documents'),
    );
    try {
      const scope = { projectId: '00000000-0000-4000-8000-000000000001', merchantId: '', livemode: false };
      const issue = await billing
        .issueCreditNote({
          scope,
          invoiceId: '00000000-0000-4000-8000-000000000002',
          amount: 100,
          reason: 'DUPLICATE',
          refundTo: 'CARD',
        })
        .then(
          () => null,
          (e: ServiceError) => readRemoteError(e),
        );
      expect(issue?.code).toBe(status.PERMISSION_DENIED);
      expect(issue?.detail).toContain('documents may not call billing.v1.BillingService/IssueCreditNote');
      // A method it may call gets past the check: billing answers it (a link that opens nothing).
      const read = await billing.getInvoiceByLink({ token: 'not-a-token' }).then(
        () => null,
        (e: ServiceError) => readRemoteError(e),
      );
      expect(read?.code).toBe(status.NOT_FOUND);
    } finally {
      billing.close();
    }
  });

  it("lets notification read billing's customers and invoices only: listing customers with its certificate is PERMISSION_DENIED", async () => {
    const billing = createPromiseClient(
      billingV1.BillingServiceClient,
      platform.env.BILLING_GRPC_URL,
      20_000,
      platform.grpcCredentials('notification'),
    );
    try {
      const scope = { projectId: '00000000-0000-4000-8000-000000000001', merchantId: '', livemode: false };
      const refused = async (call: () => Promise<unknown>) =>
        call().then(
          () => null,
          (e: ServiceError) => readRemoteError(e),
        );
      const list = await refused(() => billing.listCustomers({ scope }));
      expect(list?.code).toBe(status.PERMISSION_DENIED);
      expect(list?.detail).toContain('notification may not call billing.v1.BillingService/ListCustomers');
      const cancel = await refused(() =>
        billing.cancelSubscription({
          scope,
          subscriptionId: '00000000-0000-4000-8000-000000000003',
          atPeriodEnd: false,
          cancelledBy: 'MERCHANT',
        }),
      );
      expect(cancel?.code).toBe(status.PERMISSION_DENIED);
      // The methods it may call get past the check: billing answers them (no such customer, invoice).
      const customerId = '00000000-0000-4000-8000-000000000004';
      expect((await refused(() => billing.getCustomer({ scope, customerId })))?.code).toBe(status.NOT_FOUND);
      const invoiceId = '00000000-0000-4000-8000-000000000005';
      expect((await refused(() => billing.getInvoice({ scope, invoiceId })))?.code).toBe(status.NOT_FOUND);
    } finally {
      billing.close();
    }
  });

  it("lets portal call the methods its pages and actions need only: a refund-free credit note or identity's registration is PERMISSION_DENIED", async () => {
    const credentials = platform.grpcCredentials('portal');
    const billing = createPromiseClient(
      billingV1.BillingServiceClient,
      platform.env.BILLING_GRPC_URL,
      20_000,
      credentials,
    );
    const identity = createPromiseClient(identityV1.IdentityServiceClient, address, 20_000, credentials);
    const refusedWith = (call: Promise<unknown>) =>
      call.then(
        () => null,
        (e: ServiceError) => readRemoteError(e),
      );
    try {
      const scope = { projectId: '00000000-0000-4000-8000-000000000001', merchantId: '', livemode: false };
      const issue = await refusedWith(
        billing.issueCreditNote({
          scope,
          invoiceId: '00000000-0000-4000-8000-000000000002',
          amount: 100,
          reason: 'DUPLICATE',
          refundTo: 'CARD',
        }),
      );
      expect(issue?.code).toBe(status.PERMISSION_DENIED);
      expect(issue?.detail).toContain('portal may not call billing.v1.BillingService/IssueCreditNote');
      const register = await refusedWith(identity.registerMerchant(registration('portal')));
      expect(register?.code).toBe(status.PERMISSION_DENIED);
      // Methods it may call get past the check: billing and identity answer them.
      const card = await refusedWith(
        billing.getCardOnFile({ scope, customerId: '00000000-0000-4000-8000-000000000003' }),
      );
      expect(card?.code).toBe(status.NOT_FOUND);
      const seller = await refusedWith(
        identity.getProjectSeller({ projectId: '00000000-0000-4000-8000-000000000001' }),
      );
      expect(seller?.code).toBe(status.NOT_FOUND);
    } finally {
      billing.close();
      identity.close();
    }
  });

  it('serves the rightful caller', async () => {
    const email = registration('gateway').email;
    const registered = await registerAs(platform.grpcCredentials('gateway'), email);
    expect(registered.merchant?.email).toBe(email);
    expect(registered.accessToken).not.toBe('');
  });

  it('answers plaintext health checks on the service port, as kubelet probes ask', async () => {
    expect(await checkGrpcHealth(address, 'identity.v1.IdentityService')).toBe('SERVING');
  });

  it('refuses to start in production without certificates unless GRPC_INSECURE is set', () => {
    const logger = createLogger('internal-auth-test', 'silent');
    expect(() => grpcTransport({ NODE_ENV: 'production', GRPC_INSECURE: false }, logger)).toThrow(ConfigError);
    expect(grpcTransport({ NODE_ENV: 'production', GRPC_INSECURE: true }, logger).mutualTls).toBe(false);
    expect(() =>
      grpcTransport(
        {
          NODE_ENV: 'development',
          GRPC_INSECURE: false,
          GRPC_TLS_CA_FILE: platform.tlsFiles('gateway').GRPC_TLS_CA_FILE,
        },
        logger,
      ),
    ).toThrow(ConfigError);
  });
});
