import { defineRoute, type Resource } from '../../../http/route';
import { EXAMPLE, required, scopeOf } from '../common.schemas';
import {
  CheckoutCodeParams,
  checkoutSessionExample,
  CheckoutSessionSchema,
  CreateCheckoutSessionBody,
  toCheckoutSession,
} from './checkout.schemas';

export const checkoutResource: Resource = {
  tag: {
    name: 'Checkout',
    description:
      'Hosted payment links. A checkout session is a page (`checkout_url`) where a customer pays a plan; paying ' +
      'creates (or finds) the customer, saves their card, starts the subscription and pays its first invoice, ' +
      'then sends `checkout.session.completed`. Test-mode sessions are paid with the sandbox provider.',
  },
  prefixes: ['/checkout/sessions'],
  routes: ({ catalog }) => [
    defineRoute({
      method: 'post',
      path: '',
      operationId: 'createCheckoutSession',
      summary: 'Create a checkout session (a payment link for one plan)',
      description:
        'Send the customer to `checkout_url`. After paying they are redirected to `success_url`, after giving up ' +
        'to `cancel_url`. The session is PENDING until paid (COMPLETED, with `customer_id` and `subscription_id`) ' +
        'or until `expires_in_minutes` pass (EXPIRED, default 24 h). `customer_email` and `customer_name` ' +
        'prefill the page. Listen to `checkout.session.completed` rather than polling. `coupon_code` redeems a ' +
        'coupon for the session at once (an inactive plan, or a code that cannot be redeemed: 400 saying why) and ' +
        'the customer pays `amount_total`, the discounted price; `allow_promotion_codes` lets the customer type ' +
        'a code on the page instead, which re-prices it before Pay. A session that expires or is cancelled ' +
        'unpaid gives its redemption back. `tax_rate_ids` (at most 5, else 422; absent: the plan\u2019s) taxes the ' +
        'first invoice and the subscription the checkout creates keeps them: an unknown rate is a 404, another ' +
        "project's a 403, an inactive one a 400. The page shows the subtotal, the discount, each tax and the total, " +
        'and charges that total (`amount_total`), as billing will invoice it.',
      auth: 'apiKey',
      body: CreateCheckoutSessionBody,
      bodyExample: {
        plan_id: EXAMPLE.planId,
        success_url: 'https://acme.example/welcome',
        cancel_url: 'https://acme.example/pricing',
        customer_email: EXAMPLE.customerEmail,
        customer_name: 'Ada Obi',
        metadata: { signup_source: 'pricing-page' },
        expires_in_minutes: 1440,
        coupon_code: 'WELCOME25',
        tax_rate_ids: [EXAMPLE.taxRateId],
      },
      errors: {
        400: 'The coupon WELCOME25 does not apply to this plan',
        403: 'Plan belongs to another project',
        404: 'Plan not found',
      },
      response: { status: 201, description: 'The session, PENDING', schema: CheckoutSessionSchema },
      responseExample: checkoutSessionExample,
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
          couponCode: body.coupon_code,
          allowPromotionCodes: body.allow_promotion_codes,
          taxRates: body.tax_rate_ids && { ids: body.tax_rate_ids },
        });
        return toCheckoutSession(required(session, 'session'));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/:code',
      operationId: 'getCheckoutSession',
      summary: 'Get a checkout session by its code',
      description:
        'Its status now: PENDING, COMPLETED (with the customer and subscription it made), EXPIRED or CANCELLED.',
      auth: 'apiKey',
      params: CheckoutCodeParams,
      errors: { 403: 'Checkout session belongs to another project', 404: 'Checkout session not found' },
      response: { status: 200, description: 'The session', schema: CheckoutSessionSchema },
      responseExample: checkoutSessionExample,
      async handle({ auth: { apiKey }, params }) {
        const { session } = await catalog.getCheckoutSession({ scope: scopeOf(apiKey), code: params.code });
        return toCheckoutSession(required(session, 'session'));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/:code/expire',
      operationId: 'expireCheckoutSession',
      summary: 'Expire a pending checkout session now',
      description:
        'Its link stops taking payments and `checkout.session.expired` is sent. Only a PENDING session can ' +
        'expire: one that ended already (paid, expired, cancelled) is a 400.',
      auth: 'apiKey',
      params: CheckoutCodeParams,
      errors: {
        400: 'A completed checkout session cannot expire',
        403: 'Checkout session belongs to another project',
        404: 'Checkout session not found',
      },
      response: { status: 200, description: 'The session, EXPIRED', schema: CheckoutSessionSchema },
      responseExample: { ...checkoutSessionExample, status: 'EXPIRED' },
      async handle({ auth: { apiKey }, params }) {
        const { session } = await catalog.expireCheckoutSession({ scope: scopeOf(apiKey), code: params.code });
        return toCheckoutSession(required(session, 'session'));
      },
    }),
  ],
};
