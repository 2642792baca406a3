import { z } from 'zod';
import { toMinorUnits } from '@billing/platform';
import { defineRoute, type Resource } from '../../../http/route';
import { EXAMPLE, required, scopeOf, pageOf } from '../common.schemas';
import {
  CreatePlanBody,
  ListPlansQuery,
  planExample,
  PlanIdParams,
  PlanSchema,
  toPlan,
  UPDATABLE_PLAN_FIELDS,
  UpdatePlanBody,
} from './plans.schemas';

export const plansResource: Resource = {
  tag: {
    name: 'Plans',
    description:
      'What customers subscribe to: a price in major currency units, a billing interval, an optional free trial ' +
      'and an optional price per unit of metered usage. Prices are immutable: to re-price, create a new plan and ' +
      'deactivate the old one (its subscriptions keep billing at their price).',
  },
  prefixes: ['/plans'],
  routes: ({ catalog, planCache }) => [
    defineRoute({
      method: 'post',
      path: '',
      operationId: 'createPlan',
      summary: 'Create a plan',
      description:
        'Defaults: NGN, monthly, every 1 interval, no trial. `amount` is in major units with at most 2 decimals ' +
        '(15000.5 NGN); 0 makes a free plan whose checkout only verifies the card. With `usage_unit_amount` the ' +
        'plan is metered: each period\u2019s invoice adds the recorded usage times that price. `tax_rate_ids` are the ' +
        'default tax rates of its subscriptions and checkouts (at most 5, else 422): an unknown rate is a 404, ' +
        "another project's a 403, an inactive one a 400.",
      auth: 'apiKey',
      body: CreatePlanBody,
      bodyExample: {
        name: 'Pro',
        amount: 15000,
        currency: 'NGN',
        interval: 'monthly',
        trial_period_days: 14,
        description: 'Unlimited classes and one guest pass a month',
        metadata: { tier: 'pro' },
        tax_rate_ids: [EXAMPLE.taxRateId],
      },
      errors: {
        400: "The tax rate VAT (3d1f0b6e-8c2a-4e57-9b1d-5f7a2c9e4b10) is not active; an inactive rate can't be newly attached",
        403: 'Tax rate belongs to another project',
        404: 'Tax rate not found',
      },
      response: { status: 201, description: 'The plan', schema: PlanSchema },
      responseExample: planExample,
      async handle({ auth: { apiKey }, body }) {
        const { plan } = await catalog.createPlan({
          scope: scopeOf(apiKey),
          name: body.name,
          description: body.description ?? '',
          amount: toMinorUnits(body.amount),
          currency: body.currency,
          interval: body.interval,
          intervalCount: body.interval_count,
          trialPeriodDays: body.trial_period_days,
          usageUnitAmount: body.usage_unit_amount == null ? undefined : toMinorUnits(body.usage_unit_amount),
          metadata: body.metadata,
          taxRateIds: body.tax_rate_ids ?? [],
        });
        return toPlan(required(plan, 'plan'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      operationId: 'listPlans',
      summary: 'List plans, newest first',
      description:
        'Active and inactive plans unless `is_active` filters them. Pages of `limit` (default 20, at most 100); the ' +
        'next page starts after the last id of this one (`starting_after`).',
      auth: 'apiKey',
      query: ListPlansQuery,
      errors: { 400: 'starting_after does not name an item of this list' },
      response: { status: 200, description: 'One page of plans', schema: z.array(PlanSchema) },
      responseExample: [planExample],
      async handle({ auth: { apiKey }, query }) {
        const { plans } = await catalog.listPlans({
          scope: scopeOf(apiKey),
          page: pageOf(query),
          isActive: query.is_active,
        });
        return plans.map(toPlan);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:plan_id',
      operationId: 'getPlan',
      summary: 'Get a plan',
      description: 'Inactive plans too.',
      auth: 'apiKey',
      params: PlanIdParams,
      errors: { 403: 'Plan belongs to another project', 404: 'Plan not found' },
      response: { status: 200, description: 'The plan', schema: PlanSchema },
      responseExample: planExample,
      // Cached per (project, mode, plan) and dropped on catalog's change announcements
      // (docs/decisions.md, "Plan reads cached in the gateway"); the key check and the rate
      // limit before it still run on every request.
      async handle({ auth: { apiKey }, params }) {
        return planCache.read(apiKey, params.plan_id, async () => {
          const { plan } = await catalog.getPlan({ scope: scopeOf(apiKey), planId: params.plan_id });
          return toPlan(required(plan, 'plan'));
        });
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/:plan_id',
      operationId: 'updatePlan',
      summary: "Update a plan's name, description, activity, metadata or default tax rates",
      description:
        'Send only the fields to change; `metadata` replaces the stored metadata as a whole. Price and billing ' +
        'fields (amount, currency, interval, interval_count, trial_period_days, usage_unit_amount) are ' +
        'immutable: sending one is a 400. `is_active: true` re-activates a deactivated plan. `tax_rate_ids` ' +
        'replaces the default tax rates (checked as on creation; a rate the plan has may stay though inactive) for ' +
        'the subscriptions and checkout sessions made from now on: existing ones keep the rates they were made with.',
      auth: 'apiKey',
      params: PlanIdParams,
      body: UpdatePlanBody,
      bodyExample: { name: 'Pro (2026)', is_active: true },
      errors: {
        400: 'Plan prices are immutable (amount); create a new plan instead',
        403: 'Plan belongs to another project',
        404: 'Plan not found',
      },
      response: { status: 200, description: 'The updated plan', schema: PlanSchema },
      responseExample: { ...planExample, name: 'Pro (2026)' },
      async handle({ auth: { apiKey }, params, body }) {
        // Catalog announces the change to every replica; this one drops its entry without
        // waiting for it, also when the call failed after all (a deadline past the commit).
        const { plan } = await catalog
          .updatePlan({
            scope: scopeOf(apiKey),
            planId: params.plan_id,
            name: body.name,
            description: body.description,
            isActive: body.is_active,
            metadata: body.metadata,
            taxRates: body.tax_rate_ids && { ids: body.tax_rate_ids },
            otherFields: Object.keys(body).filter((field) => !UPDATABLE_PLAN_FIELDS.includes(field)),
          })
          .finally(() => planCache.invalidate(apiKey, params.plan_id));
        return toPlan(required(plan, 'plan'));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/:plan_id',
      operationId: 'deactivatePlan',
      summary: 'Deactivate a plan',
      description:
        'Sets `is_active=false`; nothing is deleted. Existing subscriptions keep billing at their price; new ' +
        'checkout sessions and subscriptions of the plan are refused (400) until it is active again.',
      auth: 'apiKey',
      params: PlanIdParams,
      errors: { 403: 'Plan belongs to another project', 404: 'Plan not found' },
      response: { status: 204, description: 'Deactivated' },
      async handle({ auth: { apiKey }, params }) {
        await catalog
          .deactivatePlan({ scope: scopeOf(apiKey), planId: params.plan_id })
          .finally(() => planCache.invalidate(apiKey, params.plan_id));
      },
    }),
  ],
};
