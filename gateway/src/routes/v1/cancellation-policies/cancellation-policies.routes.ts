import { z } from 'zod';
import { toMinorUnits } from '@billing/platform';
import { defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf } from '../common.schemas';
import {
  CancellationPolicySchema,
  CreateCancellationPolicyBody,
  ListCancellationPoliciesQuery,
  percentageText,
  PolicyIdParams,
  toCancellationPolicy,
  UpdateCancellationPolicyBody,
} from './cancellation-policies.schemas';

const DUAL_AUTH_NOTE = "Send both the project's API key and its merchant's access token.";

export const cancellationPoliciesResource: Resource = {
  tag: 'Cancellation policies',
  prefixes: ['/cancellation-policies'],
  routes: ({ policy }) => [
    defineRoute({
      method: 'post',
      path: '',
      summary: 'Create a cancellation policy',
      description: `${DUAL_AUTH_NOTE} With \`is_default\` the previous default of the project and mode stops being one.`,
      auth: 'dual',
      body: CreateCancellationPolicyBody,
      response: { status: 201, description: 'The policy', schema: CancellationPolicySchema },
      async handle({ auth: { apiKey }, body }) {
        const { policy: created } = await policy.createPolicy({
          scope: scopeOf(apiKey),
          name: body.name,
          refundType: body.refund_type,
          refundPercentage: percentageText(body.refund_percentage),
          refundWindowDays: body.refund_window_days,
          prorateRefund: body.prorate_refund,
          cancellationFee: toMinorUnits(body.cancellation_fee),
          applyToExisting: body.apply_to_existing,
          isDefault: body.is_default,
        });
        return toCancellationPolicy(required(created, 'policy'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      summary: 'List cancellation policies, newest first',
      description: DUAL_AUTH_NOTE,
      auth: 'dual',
      query: ListCancellationPoliciesQuery,
      errors: [400],
      response: { status: 200, description: 'One page of policies', schema: z.array(CancellationPolicySchema) },
      async handle({ auth: { apiKey }, query }) {
        const { policies } = await policy.listPolicies({
          scope: scopeOf(apiKey),
          page: { limit: query.limit ?? 0, startingAfter: query.starting_after ?? '' },
        });
        return policies.map(toCancellationPolicy);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:policy_id',
      summary: 'Get a cancellation policy',
      description: DUAL_AUTH_NOTE,
      auth: 'dual',
      params: PolicyIdParams,
      errors: [403, 404],
      response: { status: 200, description: 'The policy', schema: CancellationPolicySchema },
      async handle({ auth: { apiKey }, params }) {
        const { policy: found } = await policy.getPolicy({ scope: scopeOf(apiKey), policyId: params.policy_id });
        return toCancellationPolicy(required(found, 'policy'));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/:policy_id',
      summary: 'Change a cancellation policy',
      description:
        `${DUAL_AUTH_NOTE} Any field may change; the result is validated as a whole (422), e.g. ` +
        'switching to PARTIAL needs a refund_percentage unless one is stored.',
      auth: 'dual',
      params: PolicyIdParams,
      body: UpdateCancellationPolicyBody,
      errors: [403, 404],
      response: { status: 200, description: 'The updated policy', schema: CancellationPolicySchema },
      async handle({ auth: { apiKey }, params, body }) {
        const { policy: updated } = await policy.updatePolicy({
          scope: scopeOf(apiKey),
          policyId: params.policy_id,
          name: body.name,
          refundType: body.refund_type,
          refundPercentage: percentageText(body.refund_percentage),
          refundWindowDays: body.refund_window_days,
          prorateRefund: body.prorate_refund,
          cancellationFee: body.cancellation_fee === undefined ? undefined : toMinorUnits(body.cancellation_fee),
          applyToExisting: body.apply_to_existing,
          isDefault: body.is_default,
        });
        return toCancellationPolicy(required(updated, 'policy'));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/:policy_id',
      summary: 'Delete a cancellation policy',
      description: `${DUAL_AUTH_NOTE} Refunds already issued keep their amounts; a deleted default leaves none.`,
      auth: 'dual',
      params: PolicyIdParams,
      errors: [403, 404],
      response: { status: 204, description: 'Deleted' },
      async handle({ auth: { apiKey }, params }) {
        await policy.deletePolicy({ scope: scopeOf(apiKey), policyId: params.policy_id });
      },
    }),
  ],
};
