import { defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf } from '../common.schemas';
import {
  CheckoutCodeParams,
  CheckoutSessionSchema,
  CreateCheckoutSessionBody,
  toCheckoutSession,
} from './checkout.schemas';

export const checkoutResource: Resource = {
  tag: 'Checkout',
  prefixes: ['/checkout/sessions'],
  routes: ({ catalog }) => [
    defineRoute({
      method: 'post',
      path: '',
      summary: 'Create a checkout session (a payment link for one plan)',
      description: 'The customer pays at `checkout_url`. An inactive plan is refused with 400.',
      auth: 'apiKey',
      body: CreateCheckoutSessionBody,
      errors: [400, 403, 404],
      response: { status: 201, description: 'The session, PENDING', schema: CheckoutSessionSchema },
      async handle({ auth: { apiKey }, body }) {
        const { session } = await catalog.createCheckoutSession({
          scope: scopeOf(apiKey),
          planId: body.plan_id,
          successUrl: body.success_url,
          cancelUrl: body.cancel_url,
          customerEmail: body.customer_email,
          customerName: body.customer_name,
          metadata: body.metadata,
          expiresInMinutes: body.expires_in_minutes,
        });
        return toCheckoutSession(required(session, 'session'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:code',
      summary: 'Get a checkout session by its code',
      auth: 'apiKey',
      params: CheckoutCodeParams,
      errors: [403, 404],
      response: { status: 200, description: 'The session', schema: CheckoutSessionSchema },
      async handle({ auth: { apiKey }, params }) {
        const { session } = await catalog.getCheckoutSession({ scope: scopeOf(apiKey), code: params.code });
        return toCheckoutSession(required(session, 'session'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:code/expire',
      summary: 'Expire a pending checkout session now',
      auth: 'apiKey',
      params: CheckoutCodeParams,
      errors: [400, 403, 404],
      response: { status: 200, description: 'The session, EXPIRED', schema: CheckoutSessionSchema },
      async handle({ auth: { apiKey }, params }) {
        const { session } = await catalog.expireCheckoutSession({ scope: scopeOf(apiKey), code: params.code });
        return toCheckoutSession(required(session, 'session'));
      },
    }),
  ],
};
