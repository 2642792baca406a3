import { z } from 'zod';
import { toMinorUnits } from '@billing/platform';
import { defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf, pageOf } from '../common.schemas';
import {
  cancellationPolicyExample,
  CancellationPolicySchema,
  CreateCancellationPolicyBody,
  ListCancellationPoliciesQuery,
  percentageText,
  PolicyIdParams,
  toCancellationPolicy,
  UpdateCancellationPolicyBody,
} from './cancellation-policies.schemas';

const NOT_FOUND = { 403: 'Cancellation policy belongs to another project', 404: 'Cancellation policy not found' };

export const cancellationPoliciesResource: Resource = {
  tag: {
    name: 'Cancellation policies',
    description:
      'How much a cancel-now refunds of the current period: nothing, everything or a percentage, within a window ' +
      'of days, prorated to the unused time or not, minus a fee. The default policy of a project and mode applies ' +
      'to its cancellations unless the cancel names another; refunds go back through the payment provider.',
  },
  prefixes: ['/cancellation-policies'],
  routes: ({ policy }) => [
    defineRoute({
      method: 'post',
      path: '',
      operationId: 'createCancellationPolicy',
      summary: 'Create a cancellation policy',
      description:
        'PARTIAL needs `refund_percentage`. With `is_default` it becomes the default of the project and mode and ' +
        'the previous default stops being one. A default policy applies to subscriptions created before it only ' +
        'with `apply_to_existing`.',
      auth: 'dual',
      body: CreateCancellationPolicyBody,
      bodyExample: {
        name: 'Half back in the first week',
        refund_type: 'PARTIAL',
        refund_percentage: 50,
        refund_window_days: 7,
        cancellation_fee: 500,
        apply_to_existing: true,
        is_default: true,
      },
      response: { status: 201, description: 'The policy', schema: CancellationPolicySchema },
      responseExample: cancellationPolicyExample,
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
      operationId: 'listCancellationPolicies',
      summary: 'List cancellation policies, newest first',
      description:
        'Pages of `limit` (default 20, at most 100); the next page starts after the last id of this one ' +
        '(`starting_after`).',
      auth: 'dual',
      query: ListCancellationPoliciesQuery,
      errors: { 400: 'starting_after does not name an item of this list' },
      response: { status: 200, description: 'One page of policies', schema: z.array(CancellationPolicySchema) },
      responseExample: [cancellationPolicyExample],
      async handle({ auth: { apiKey }, query }) {
        const { policies } = await policy.listPolicies({
          scope: scopeOf(apiKey),
          page: pageOf(query),
        });
        return policies.map(toCancellationPolicy);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:policy_id',
      operationId: 'getCancellationPolicy',
      summary: 'Get a cancellation policy',
      description: '`refund_percentage` is the effective share: 100 for FULL, 0 for NONE.',
      auth: 'dual',
      params: PolicyIdParams,
      errors: NOT_FOUND,
      response: { status: 200, description: 'The policy', schema: CancellationPolicySchema },
      responseExample: cancellationPolicyExample,
      async handle({ auth: { apiKey }, params }) {
        const { policy: found } = await policy.getPolicy({ scope: scopeOf(apiKey), policyId: params.policy_id });
        return toCancellationPolicy(required(found, 'policy'));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/:policy_id',
      operationId: 'updateCancellationPolicy',
      summary: 'Change a cancellation policy',
      description:
        'Any field may change; the result is validated as a whole (422), e.g. switching to PARTIAL needs a ' +
        '`refund_percentage` unless one is stored. Refunds already issued keep their amounts.',
      auth: 'dual',
      params: PolicyIdParams,
      body: UpdateCancellationPolicyBody,
      bodyExample: { refund_window_days: 14, prorate_refund: true },
      errors: NOT_FOUND,
      response: { status: 200, description: 'The updated policy', schema: CancellationPolicySchema },
      responseExample: {
        ...cancellationPolicyExample,
        refund_window_days: 14,
        prorate_refund: true,
        updated_at: '2026-03-05T16:40:00.000Z',
      },
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
      operationId: 'deleteCancellationPolicy',
      summary: 'Delete a cancellation policy',
      description:
        'Refunds already issued keep their amounts. Deleting the default leaves the project and mode without ' +
        'one: cancellations then refund nothing unless they name a policy.',
      auth: 'dual',
      params: PolicyIdParams,
      errors: NOT_FOUND,
      response: { status: 204, description: 'Deleted' },
      async handle({ auth: { apiKey }, params }) {
        await policy.deletePolicy({ scope: scopeOf(apiKey), policyId: params.policy_id });
      },
    }),
  ],
};
