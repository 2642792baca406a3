import { status as GrpcStatus } from '@grpc/grpc-js';
import { isGrpcServiceError, type CallOverrides, type ProjectScope } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { CatalogDeps } from '../../catalog-deps';
import type { WorkflowStep } from '../create-workflow';

/*
 * The workflows' steps that call billing. Each call carries the deadline of the call catalog is
 * answering: the gateway's GRPC_DEADLINE_MS, the budget the gateway gives any call to billing, so
 * that billing's first charge has all of it, and when it passes the gateway and the workflow stop
 * waiting together (the outcome unknown, the redemption stays). Billing's errors are thrown as
 * billing gave them: catalog's gRPC server answers them unchanged (unaryService), never as
 * INTERNAL.
 */

/**
 * Billing's answers that mean its call changed nothing: the steps before it are compensated (a
 * redemption made for it is given back). Others (UNAVAILABLE, DEADLINE_EXCEEDED, INTERNAL) leave
 * the outcome unknown, so what came before stays: a retry with the same Idempotency-Key finds it
 * again and counts nothing more (docs/api-behaviour.md §19).
 */
const NOTHING_DONE = new Set<number>([
  GrpcStatus.INVALID_ARGUMENT,
  // Among them payment_required: a declined first charge creates nothing.
  GrpcStatus.FAILED_PRECONDITION,
  GrpcStatus.NOT_FOUND,
  GrpcStatus.PERMISSION_DENIED,
  GrpcStatus.ALREADY_EXISTS,
  GrpcStatus.ABORTED,
]);

export const billingChangedNothing = (err: unknown): boolean => isGrpcServiceError(err) && NOTHING_DONE.has(err.code);

export interface SubscriptionRef {
  scope: ProjectScope;
  subscriptionId: string;
}

/** A read: NOT_FOUND or PERMISSION_DENIED as billing answers them. */
export const getSubscriptionStep: WorkflowStep<SubscriptionRef, billingV1.Subscription, never, CatalogDeps> = {
  name: 'read the subscription in billing',
  async invoke(ref, { deps, deadline }) {
    const { subscription } = await deps.billing.getSubscription(ref, { deadline });
    if (!subscription) throw new Error('billing answered GetSubscription without a subscription');
    return { output: subscription };
  },
  changedNothing: () => true,
};

/** A step that is one call to billing, whose answer is the step's output. */
function billingCallStep<Request, Response>(
  name: string,
  call: (billing: CatalogDeps['billing'], request: Request, overrides: CallOverrides) => Promise<Response>,
): WorkflowStep<Request, Response, never, CatalogDeps> {
  return {
    name,
    async invoke(request, { deps, deadline }) {
      return { output: await call(deps.billing, request, { deadline }) };
    },
    changedNothing: billingChangedNothing,
  };
}

/** Billing charges the first period now (or starts the trial); a declined charge creates nothing. */
export const createSubscriptionStep = billingCallStep(
  'create the subscription in billing',
  (billing, request: billingV1.CreateSubscriptionRequest, overrides) => billing.createSubscription(request, overrides),
);

/** FAILED_PRECONDITION for a CANCELLED or EXPIRED subscription: no discount is applied. */
export const applySubscriptionDiscountStep = billingCallStep(
  'apply the discount in billing',
  (billing, request: billingV1.ApplySubscriptionDiscountRequest, overrides) =>
    billing.applySubscriptionDiscount(request, overrides),
);
