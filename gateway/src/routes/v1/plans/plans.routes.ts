import { z } from 'zod';
import { toMinorUnits } from '@billing/platform';
import { defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf } from '../common.schemas';
import {
  CreatePlanBody,
  ListPlansQuery,
  PlanIdParams,
  PlanSchema,
  toPlan,
  UPDATABLE_PLAN_FIELDS,
  UpdatePlanBody,
} from './plans.schemas';

export const plansResource: Resource = {
  tag: 'Plans',
  prefixes: ['/plans'],
  routes: ({ catalog }) => [
    defineRoute({
      method: 'post',
      path: '',
      summary: 'Create a plan',
      auth: 'apiKey',
      body: CreatePlanBody,
      response: { status: 201, description: 'The plan', schema: PlanSchema },
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
        });
        return toPlan(required(plan, 'plan'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      summary: 'List plans, newest first',
      auth: 'apiKey',
      query: ListPlansQuery,
      errors: [400],
      response: { status: 200, description: 'One page of plans', schema: z.array(PlanSchema) },
      async handle({ auth: { apiKey }, query }) {
        const { plans } = await catalog.listPlans({
          scope: scopeOf(apiKey),
          page: { limit: query.limit ?? 0, startingAfter: query.starting_after ?? '' },
          isActive: query.is_active,
        });
        return plans.map(toPlan);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:plan_id',
      summary: 'Get a plan',
      auth: 'apiKey',
      params: PlanIdParams,
      errors: [403, 404],
      response: { status: 200, description: 'The plan', schema: PlanSchema },
      async handle({ auth: { apiKey }, params }) {
        const { plan } = await catalog.getPlan({ scope: scopeOf(apiKey), planId: params.plan_id });
        return toPlan(required(plan, 'plan'));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/:plan_id',
      summary: "Update a plan's name, description, activity or metadata",
      description:
        'Price and billing fields (amount, currency, interval, interval_count, trial_period_days, usage_unit_amount) are immutable: 400.',
      auth: 'apiKey',
      params: PlanIdParams,
      body: UpdatePlanBody,
      errors: [400, 403, 404],
      response: { status: 200, description: 'The updated plan', schema: PlanSchema },
      async handle({ auth: { apiKey }, params, body }) {
        const { plan } = await catalog.updatePlan({
          scope: scopeOf(apiKey),
          planId: params.plan_id,
          name: body.name,
          description: body.description,
          isActive: body.is_active,
          metadata: body.metadata,
          otherFields: Object.keys(body).filter((field) => !UPDATABLE_PLAN_FIELDS.includes(field)),
        });
        return toPlan(required(plan, 'plan'));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/:plan_id',
      summary: 'Deactivate a plan',
      description: 'Sets `is_active=false`; existing subscriptions keep billing.',
      auth: 'apiKey',
      params: PlanIdParams,
      errors: [403, 404],
      response: { status: 204, description: 'Deactivated' },
      async handle({ auth: { apiKey }, params }) {
        await catalog.deactivatePlan({ scope: scopeOf(apiKey), planId: params.plan_id });
      },
    }),
  ],
};
