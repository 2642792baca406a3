import type { Router } from 'express';
import type { Coupon, Plan, TaxRate } from '../api-answers';
import { checkedOf, formOf, numberOf, textOf } from '../form-fields';
import { frameFor, noticeOf, PAGE_SIZE, type PageKit } from '../page-kit';
import { couponsPage } from '../views/coupons.view';
import { plansPage } from '../views/plans.view';
import { taxRatesPage } from '../views/tax-rates.view';

/** Plans, coupons and tax rates: each listed, and created with a form. */
export function mountCatalogPages(router: Router, kit: PageKit): void {
  const { call, page, onFirstPage } = kit;
  router.get('/plans', async (req, res) => {
    const plans = await call<Plan[]>(req, res, 'listPlans', { query: page(req) });
    res.send(
      plansPage(frameFor(res, 'plans'), {
        plans,
        limit: PAGE_SIZE,
        onFirstPage: onFirstPage(req),
        notice: noticeOf(req),
      }),
    );
  });

  router.post('/plans', async (req, res) => {
    const form = formOf(req);
    await call<Plan>(req, res, 'createPlan', {
      body: {
        name: form.name,
        amount: numberOf(form.amount),
        currency: textOf(form.currency),
        interval: textOf(form.interval),
        interval_count: numberOf(form.interval_count),
        trial_period_days: numberOf(form.trial_period_days),
        description: textOf(form.description),
      },
    });
    res.redirect(303, '/dashboard/plans?done=plan_created');
  });

  router.get('/coupons', async (req, res) => {
    const coupons = await call<Coupon[]>(req, res, 'listCoupons', { query: page(req) });
    res.send(
      couponsPage(frameFor(res, 'coupons'), {
        coupons,
        limit: PAGE_SIZE,
        onFirstPage: onFirstPage(req),
        notice: noticeOf(req),
      }),
    );
  });

  router.post('/coupons', async (req, res) => {
    const form = formOf(req);
    await call<Coupon>(req, res, 'createCoupon', {
      body: {
        code: form.code,
        name: textOf(form.name),
        percent_off: numberOf(form.percent_off),
        amount_off: numberOf(form.amount_off),
        currency: textOf(form.currency),
        duration: textOf(form.duration),
        duration_in_periods: numberOf(form.duration_in_periods),
        max_redemptions: numberOf(form.max_redemptions),
      },
    });
    res.redirect(303, '/dashboard/coupons?done=coupon_created');
  });

  router.get('/tax-rates', async (req, res) => {
    const taxRates = await call<TaxRate[]>(req, res, 'listTaxRates', { query: page(req) });
    res.send(
      taxRatesPage(frameFor(res, 'taxRates'), {
        taxRates,
        limit: PAGE_SIZE,
        onFirstPage: onFirstPage(req),
        notice: noticeOf(req),
      }),
    );
  });

  router.post('/tax-rates', async (req, res) => {
    const form = formOf(req);
    await call<TaxRate>(req, res, 'createTaxRate', {
      body: {
        display_name: form.display_name,
        percentage: numberOf(form.percentage),
        inclusive: checkedOf(form.inclusive),
        country: textOf(form.country),
        jurisdiction: textOf(form.jurisdiction),
      },
    });
    res.redirect(303, '/dashboard/tax-rates?done=tax_rate_created');
  });
}
