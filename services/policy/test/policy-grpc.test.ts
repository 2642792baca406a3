import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import {
  checkGrpcHealth,
  createPromiseClient,
  readRemoteError,
  type PromiseClient,
  type RemoteError,
} from '@billing/platform';
import { policyV1 } from '@billing/proto';
import { queryDatabase, type SharedPlatform, sharedPlatform } from '@billing/testing';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The policy process on its own, spoken to over real gRPC. */
describe('policy gRPC service', () => {
  let platform: SharedPlatform;
  let policy: PromiseClient<policyV1.PolicyServiceClient>;
  let address: string;

  const newScope = (livemode = false) => ({ projectId: randomUUID(), merchantId: randomUUID(), livemode });
  const failure = (promise: Promise<unknown>): Promise<RemoteError> =>
    promise.then(
      () => {
        throw new Error('expected the call to fail');
      },
      (err) => readRemoteError(err),
    );

  const create = async (scope: ReturnType<typeof newScope>, fields: Partial<policyV1.CreatePolicyRequest> = {}) => {
    const { policy: created } = await policy.createPolicy({
      scope,
      name: 'Policy',
      refundType: 'FULL',
      refundWindowDays: 0,
      prorateRefund: false,
      cancellationFee: 0,
      applyToExisting: false,
      isDefault: false,
      ...fields,
    });
    return created!;
  };

  /** A 30-day period that paid 10,000 minor units, cancelled on its 10th day. */
  const question = (
    scope: ReturnType<typeof newScope>,
    subscriptionCreatedAt: Date,
    over: Partial<policyV1.QuoteRefundRequest> = {},
  ): policyV1.QuoteRefundRequest => {
    const periodStart = new Date(subscriptionCreatedAt.getTime());
    return {
      scope,
      subscriptionCreatedAt,
      periodStart,
      periodEnd: new Date(periodStart.getTime() + 30 * DAY_MS),
      refundableAmount: 10_000,
      currency: 'NGN',
      isTrial: false,
      cancelledAt: new Date(periodStart.getTime() + 10 * DAY_MS),
      ...over,
    };
  };

  beforeAll(async () => {
    platform = await sharedPlatform();
    address = platform.env.POLICY_GRPC_URL;
    policy = createPromiseClient(policyV1.PolicyServiceClient, address, 5000, platform.grpcCredentials('gateway'));
  });
  afterAll(async () => {
    policy?.close();
    await platform?.stop();
  });

  it('answers grpc.health.v1 Check for the server and for its service', async () => {
    expect(await checkGrpcHealth(address)).toBe('SERVING');
    expect(await checkGrpcHealth(address, 'policy.v1.PolicyService')).toBe('SERVING');
  });

  it('refuses a request without a project scope instead of reading across tenants', async () => {
    const err = await failure(policy.listPolicies({ page: { limit: 10, startingAfter: '' } }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
  });

  it('stores the defaults of docs/api-behaviour.md §10, the fee in minor units and the percentage as an exact decimal', async () => {
    const scope = newScope();
    const created = await create(scope, { refundType: 'PARTIAL', refundPercentage: '33.33', cancellationFee: 550 });
    expect(created).toMatchObject({
      projectId: scope.projectId,
      livemode: false,
      refundType: 'PARTIAL',
      refundPercentage: '33.33',
      refundWindowDays: 0,
      prorateRefund: false,
      cancellationFee: 550,
      applyToExisting: false,
      isDefault: false,
    });
    const [row] = await queryDatabase<{ refund_percentage: string; cancellation_fee: string }>(
      platform.database('policy'),
      'SELECT refund_percentage, cancellation_fee FROM cancellation_policies WHERE id = $1',
      [created.id],
    );
    expect(row).toEqual({ refund_percentage: '33.33', cancellation_fee: '550' });
  });

  it('reports every broken rule of docs/api-behaviour.md §10 as field violations', async () => {
    const scope = newScope();
    const err = await failure(
      policy.createPolicy({
        scope,
        name: ' ',
        refundType: 'SOME',
        refundWindowDays: -1,
        prorateRefund: false,
        cancellationFee: -5,
        applyToExisting: false,
        isDefault: false,
      }),
    );
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    const byField = Object.fromEntries(err.violations.map((v) => [v.loc[1], v]));
    expect(Object.keys(byField).sort()).toEqual(['cancellation_fee', 'name', 'refund_type', 'refund_window_days']);
    expect(byField.refund_type).toMatchObject({ loc: ['body', 'refund_type'], type: 'enum', input: 'SOME' });
    expect(byField.refund_window_days).toMatchObject({ type: 'greater_than_equal', ctx: { ge: 0 }, input: -1 });

    const partial = (refundPercentage?: string) =>
      failure(
        policy.createPolicy({
          scope,
          name: 'P',
          refundType: 'PARTIAL',
          refundPercentage,
          refundWindowDays: 0,
          prorateRefund: false,
          cancellationFee: 0,
          applyToExisting: false,
          isDefault: false,
        }),
      );
    expect((await partial(undefined)).violations).toEqual([
      { loc: ['body', 'refund_percentage'], msg: expect.any(String), type: 'missing' },
    ]);
    expect((await partial('101')).violations[0]).toMatchObject({ type: 'less_than_equal', input: 101 });
    expect((await partial('-1')).violations[0]).toMatchObject({ type: 'greater_than_equal', input: -1 });
    expect((await partial('12.345')).violations[0]).toMatchObject({ type: 'decimal_max_places' });
    expect((await partial('1e2')).violations[0]).toMatchObject({ type: 'decimal_parsing' });
    // Outside PARTIAL the percentage is ignored, not validated.
    expect((await create(scope, { refundType: 'FULL', refundPercentage: '150' })).refundPercentage).toBeUndefined();
  });

  it('validates a PATCHed policy as a whole and never keeps a percentage outside PARTIAL', async () => {
    const scope = newScope();
    const created = await create(scope, { refundType: 'PARTIAL', refundPercentage: '50' });
    const full = await policy.updatePolicy({ scope, policyId: created.id, refundType: 'FULL' });
    expect(full.policy).toMatchObject({ refundType: 'FULL', refundPercentage: undefined, name: 'Policy' });
    const err = await failure(policy.updatePolicy({ scope, policyId: created.id, refundType: 'PARTIAL' }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.violations[0]).toMatchObject({ loc: ['body', 'refund_percentage'], type: 'missing' });
    expect((await policy.getPolicy({ scope, policyId: created.id })).policy?.refundType).toBe('FULL');
    const partial = await policy.updatePolicy({
      scope,
      policyId: created.id,
      refundType: 'PARTIAL',
      refundPercentage: '12.5',
    });
    expect(partial.policy).toMatchObject({ refundType: 'PARTIAL', refundPercentage: '12.5' });
  });

  it('keeps exactly one default per project and mode, also when defaults are created concurrently', async () => {
    const scope = newScope();
    const live = { ...scope, livemode: true };
    const liveDefault = await create(live, { isDefault: true });
    const created = await Promise.all(Array.from({ length: 5 }, () => create(scope, { isDefault: true })));
    const defaults = await queryDatabase<{ id: string; livemode: boolean }>(
      platform.database('policy'),
      'SELECT id, livemode FROM cancellation_policies WHERE project_id = $1 AND is_default',
      [scope.projectId],
    );
    expect(defaults.filter((d) => !d.livemode)).toHaveLength(1);
    expect(created.map((c) => c.id)).toContain(defaults.find((d) => !d.livemode)!.id);
    // The other mode's default is another default.
    expect(defaults.filter((d) => d.livemode).map((d) => d.id)).toEqual([liveDefault.id]);
  });

  describe('QuoteRefund', () => {
    it('applies the policy named on cancel, even to a subscription older than the policy', async () => {
      const scope = newScope();
      const named = await create(scope, { refundType: 'PARTIAL', refundPercentage: '25' });
      await create(scope, { isDefault: true, applyToExisting: true });
      const before = new Date(named.createdAt!.getTime() - 90 * DAY_MS);
      const quote = await policy.quoteRefund(question(scope, before, { policyId: named.id }));
      expect(quote).toEqual({ amount: 2_500, policyId: named.id, reason: 'computed' });
    });

    it("falls back to the project+mode's default", async () => {
      const scope = newScope();
      await create(scope, { refundType: 'NONE' });
      const fallback = await create(scope, { isDefault: true, cancellationFee: 1_000, prorateRefund: true });
      const after = new Date(fallback.createdAt!.getTime() + 1000);
      // 20 of 30 days unused: 10,000 x 20/30 = 6,666.67, minus the fee 1,000 -> 5,667.
      expect(await policy.quoteRefund(question(scope, after))).toEqual({
        amount: 5_667,
        policyId: fallback.id,
        reason: 'computed',
      });
    });

    it('honours apply_to_existing for the default policy', async () => {
      const scope = newScope();
      const onlyNew = await create(scope, { isDefault: true, applyToExisting: false });
      const before = new Date(onlyNew.createdAt!.getTime() - DAY_MS);
      const after = new Date(onlyNew.createdAt!.getTime() + 1000);
      expect(await policy.quoteRefund(question(scope, before))).toEqual({
        amount: 0,
        policyId: '',
        reason: 'no_policy',
      });
      expect(await policy.quoteRefund(question(scope, after))).toEqual({
        amount: 10_000,
        policyId: onlyNew.id,
        reason: 'computed',
      });

      await policy.updatePolicy({ scope, policyId: onlyNew.id, applyToExisting: true });
      expect(await policy.quoteRefund(question(scope, before))).toEqual({
        amount: 10_000,
        policyId: onlyNew.id,
        reason: 'computed',
      });
    });

    it('refunds nothing with no policy id and no default, and nothing for a trial', async () => {
      const scope = newScope();
      await create(scope);
      expect(await policy.quoteRefund(question(scope, new Date()))).toEqual({
        amount: 0,
        policyId: '',
        reason: 'no_policy',
      });
      const fallback = await create(scope, { isDefault: true, applyToExisting: true });
      expect(await policy.quoteRefund(question(scope, new Date(), { isTrial: true }))).toEqual({
        amount: 0,
        policyId: fallback.id,
        reason: 'trial',
      });
    });

    it("never applies another tenant's policy", async () => {
      const scope = newScope();
      const mine = await create(scope, { isDefault: true, applyToExisting: true });
      const otherProject = newScope();
      const foreign = await failure(policy.quoteRefund(question(otherProject, new Date(), { policyId: mine.id })));
      // docs/api-behaviour.md §1: an id of another project is a 403 (PERMISSION_DENIED), like every id of this platform.
      expect(foreign.code).toBe(status.PERMISSION_DENIED);
      // The other mode of the same project shares nothing: its default is not this one either.
      const live = { ...scope, livemode: true };
      expect((await failure(policy.quoteRefund(question(live, new Date(), { policyId: mine.id })))).code).toBe(
        status.NOT_FOUND,
      );
      expect((await policy.quoteRefund(question(live, new Date()))).policyId).toBe('');
      expect((await policy.quoteRefund(question(otherProject, new Date()))).policyId).toBe('');
      for (const policyId of [randomUUID(), 'not-a-uuid']) {
        expect((await failure(policy.quoteRefund(question(scope, new Date(), { policyId })))).code).toBe(
          status.NOT_FOUND,
        );
      }
    });

    it('refuses an incomplete question rather than computing from nonsense', async () => {
      const scope = newScope();
      const err = await failure(
        policy.quoteRefund({
          ...question(scope, new Date()),
          periodEnd: undefined,
          refundableAmount: -1,
          currency: 'EUR',
        }),
      );
      expect(err.code).toBe(status.INVALID_ARGUMENT);
      expect(err.violations.map((v) => v.loc[0]).sort()).toEqual(['currency', 'period_end', 'refundable_amount']);
    });
  });

  it("creates test-mode policies on the project's test clock", async () => {
    const scope = newScope();
    const to = new Date(Date.now() + 40 * DAY_MS);
    await policy.advanceTestClock({ scope, to });
    const created = await create(scope);
    expect(created.createdAt!.getTime()).toBeGreaterThanOrEqual(to.getTime());
    expect(created.createdAt!.getTime()).toBeLessThan(to.getTime() + 60_000);
    const live = await create({ ...scope, livemode: true });
    expect(Math.abs(live.createdAt!.getTime() - Date.now())).toBeLessThan(60_000);
    expect((await failure(policy.advanceTestClock({ scope: { ...scope, livemode: true }, to }))).code).toBe(
      status.PERMISSION_DENIED,
    );
    expect((await failure(policy.advanceTestClock({ scope, to: new Date() }))).code).toBe(status.FAILED_PRECONDITION);
  });
});
