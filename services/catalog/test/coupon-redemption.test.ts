import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { createPromiseClient, readRemoteError, type PromiseClient } from '@billing/platform';
import { catalogV1 } from '@billing/proto';
import { queryDatabase, type SharedPlatform, sharedPlatform } from '@billing/testing';

/**
 * catalog.v1 RedeemCoupon / ReleaseCouponRedemption over real gRPC and PostgreSQL
 * (docs/api-behaviour.md §19): idempotent per redemption key, never past max_redemptions,
 * given back exactly once.
 */
describe('coupon redemption (catalog gRPC)', () => {
  let platform: SharedPlatform;
  let catalog: PromiseClient<catalogV1.CatalogServiceClient>;
  const scope = { projectId: randomUUID(), merchantId: randomUUID(), livemode: false };
  let planId: string;

  beforeAll(async () => {
    platform = await sharedPlatform();
    catalog = createPromiseClient(
      catalogV1.CatalogServiceClient,
      platform.env.CATALOG_GRPC_URL,
      10_000,
      platform.grpcCredentials('gateway'),
    );
    const { plan } = await catalog.createPlan({
      scope,
      name: 'Monthly',
      description: '',
      taxRateIds: [],
      amount: 1_000_000,
      currency: 'NGN',
      interval: 'monthly',
      intervalCount: 1,
      trialPeriodDays: 0,
    });
    planId = plan!.id;
  });
  afterAll(async () => {
    catalog?.close();
    await platform?.stop();
  });

  async function newCoupon(code: string, fields: Partial<catalogV1.CreateCouponRequest> = {}) {
    const { coupon } = await catalog.createCoupon({
      scope,
      code,
      percentOff: '25',
      duration: 'ONCE',
      planIds: [],
      ...fields,
    });
    return coupon!;
  }
  const redeem = (code: string, redemptionKey: string) =>
    catalog.redeemCoupon({ scope, code, redemptionKey, planId, currency: 'NGN' });
  const times = async (id: string) => (await catalog.getCoupon({ scope, couponId: id })).coupon!.timesRedeemed;

  it('counts a key once, gives it back once, and counts it again when it redeems again', async () => {
    const coupon = await newCoupon('KEYED', { maxRedemptions: 2 });
    const first = await redeem('keyed', 'subscription:key-1');
    expect(first).toEqual({
      created: true,
      coupon: {
        couponId: coupon.id,
        code: 'KEYED',
        percentOff: '25',
        amountOff: undefined,
        currency: undefined,
        duration: 'ONCE',
        durationInPeriods: undefined,
      },
    });
    expect(await redeem('KEYED', 'subscription:key-1')).toEqual({ ...first, created: false });
    expect(await times(coupon.id)).toBe(1);

    expect(await catalog.releaseCouponRedemption({ scope, redemptionKey: 'subscription:key-1' })).toEqual({
      released: 1,
    });
    expect(await catalog.releaseCouponRedemption({ scope, redemptionKey: 'subscription:key-1' })).toEqual({
      released: 0,
    });
    expect(await times(coupon.id)).toBe(0);
    expect((await redeem('KEYED', 'subscription:key-1')).created).toBe(true);
    expect(await times(coupon.id)).toBe(1);
  });

  it('never passes max_redemptions: 30 concurrent keys on a coupon of 7 -> 7 counted, 23 refused as exhausted', async () => {
    const coupon = await newCoupon('SEVEN', { maxRedemptions: 7 });
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => redeem('SEVEN', `race:${i}`)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(7);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      const err = readRemoteError((r as PromiseRejectedResult).reason);
      expect([err.code, err.detail]).toEqual([
        status.FAILED_PRECONDITION,
        'The coupon SEVEN has been redeemed the maximum number of times (7)',
      ]);
    }
    expect(await times(coupon.id)).toBe(7);
    const rows = await queryDatabase<{ status: string; n: number }>(
      platform.database('catalog'),
      'SELECT status, count(*)::int AS n FROM coupon_redemptions WHERE coupon_id = $1 GROUP BY status',
      [coupon.id],
    );
    expect(rows).toEqual([{ status: 'ACTIVE', n: 7 }]);
  });

  it('the same key redeemed concurrently counts once', async () => {
    const coupon = await newCoupon('SAMEKEY');
    const results = await Promise.all(Array.from({ length: 10 }, () => redeem('SAMEKEY', 'checkout:one')));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await times(coupon.id)).toBe(1);
  });
});
