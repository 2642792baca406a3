import { z } from 'zod';
import { toMinorUnits } from '@billing/platform';
import { defineRoute, type Resource } from '../../../http/route';
import { EXAMPLE, required, scopeOf, pageOf } from '../common.schemas';
import {
  couponExample,
  CouponIdParams,
  CouponSchema,
  CreateCouponBody,
  ListCouponsQuery,
  toCoupon,
} from './coupons.schemas';

const NOT_FOUND = { 403: 'Coupon belongs to another project', 404: 'Coupon not found' };

export const couponsResource: Resource = {
  tag: {
    name: 'Coupons',
    description:
      'Discounts customers redeem with a code: a percentage or an amount off each invoice of a subscription, ' +
      'once, for a number of periods, or forever. Redeem a code with `coupon_code` on POST /subscriptions or ' +
      'POST /checkout/sessions, on the hosted checkout page (`allow_promotion_codes`), or on an existing ' +
      'subscription with POST /subscriptions/{id}/discount. A refused code is a 400 saying why.',
  },
  prefixes: ['/coupons'],
  routes: ({ catalog }) => [
    defineRoute({
      method: 'post',
      path: '',
      operationId: 'createCoupon',
      summary: 'Create a coupon',
      description:
        '`code` is unique in the project and mode, compared case-insensitively and stored upper case (taken: ' +
        '409). Exactly one of `percent_off` (0 < x <= 100, at most 2 decimals) and `amount_off` (with its ' +
        '`currency`); `duration` ONCE (the first invoice after redemption), REPEATING (the next ' +
        '`duration_in_periods` period invoices, 1..120, required with REPEATING and only then) or FOREVER. ' +
        'Optional: `max_redemptions` (>= 1; `times_redeemed` never exceeds it, however many redeem at once), ' +
        '`redeem_by` (after it the code is refused as expired) and `plan_ids` (plans of this project and mode ' +
        'it is limited to; default every plan). Breaking a rule is a 422.',
      auth: 'apiKey',
      body: CreateCouponBody,
      bodyExample: {
        code: 'welcome25',
        name: 'Welcome: 25% off for 3 months',
        percent_off: 25,
        duration: 'REPEATING',
        duration_in_periods: 3,
        max_redemptions: 500,
        redeem_by: '2026-12-31T23:59:59.000Z',
        plan_ids: [EXAMPLE.planId],
      },
      errors: {
        403: 'Plan belongs to another project',
        404: 'Plan not found',
        409: 'A coupon with the code WELCOME25 already exists',
      },
      response: { status: 201, description: 'The coupon', schema: CouponSchema },
      responseExample: couponExample,
      async handle({ auth: { apiKey }, body }) {
        const { coupon } = await catalog.createCoupon({
          scope: scopeOf(apiKey),
          code: body.code,
          name: body.name,
          percentOff: body.percent_off === undefined ? undefined : String(body.percent_off),
          amountOff: body.amount_off === undefined ? undefined : toMinorUnits(body.amount_off),
          currency: body.currency,
          duration: body.duration,
          durationInPeriods: body.duration_in_periods,
          maxRedemptions: body.max_redemptions,
          redeemBy: body.redeem_by === undefined ? undefined : new Date(body.redeem_by),
          planIds: body.plan_ids ?? [],
        });
        return toCoupon(required(coupon, 'coupon'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      operationId: 'listCoupons',
      summary: 'List coupons, newest first',
      description:
        'Active and inactive coupons, each with `times_redeemed`. Pages of `limit` (default 20, at most 100); the ' +
        'next page starts after the last id of this one (`starting_after`).',
      auth: 'apiKey',
      query: ListCouponsQuery,
      errors: { 400: 'starting_after does not name an item of this list' },
      response: { status: 200, description: 'One page of coupons', schema: z.array(CouponSchema) },
      responseExample: [{ ...couponExample, times_redeemed: 42 }],
      async handle({ auth: { apiKey }, query }) {
        const { coupons } = await catalog.listCoupons({
          scope: scopeOf(apiKey),
          page: pageOf(query),
        });
        return coupons.map(toCoupon);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:coupon_id',
      operationId: 'getCoupon',
      summary: 'Get a coupon',
      description: 'Inactive coupons too; `times_redeemed` is how many redemptions count now.',
      auth: 'apiKey',
      params: CouponIdParams,
      errors: NOT_FOUND,
      response: { status: 200, description: 'The coupon', schema: CouponSchema },
      responseExample: { ...couponExample, times_redeemed: 42 },
      async handle({ auth: { apiKey }, params }) {
        const { coupon } = await catalog.getCoupon({ scope: scopeOf(apiKey), couponId: params.coupon_id });
        return toCoupon(required(coupon, 'coupon'));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/:coupon_id',
      operationId: 'deactivateCoupon',
      summary: 'Deactivate a coupon',
      description:
        'Sets `is_active=false`; nothing is deleted. The code is refused from now on (400, inactive); the ' +
        'discounts already given keep running until they end.',
      auth: 'apiKey',
      params: CouponIdParams,
      errors: NOT_FOUND,
      response: { status: 204, description: 'Deactivated' },
      async handle({ auth: { apiKey }, params }) {
        await catalog.deactivateCoupon({ scope: scopeOf(apiKey), couponId: params.coupon_id });
      },
    }),
  ],
};
