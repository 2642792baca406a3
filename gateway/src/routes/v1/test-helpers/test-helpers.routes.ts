import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { EXAMPLE, idParam, scopeOf } from '../common.schemas';

/** The sandbox card behaviors; billing checks them again. */
const CARD_BEHAVIORS = ['succeed', 'decline', 'insufficient_funds'] as const;

const CardBehaviorBody = z.object({ behavior: z.enum(CARD_BEHAVIORS) }).meta({ id: 'CardBehaviorRequest' });
const CardBehaviorSchema = z
  .object({ customer_id: z.uuid(), behavior: z.enum(CARD_BEHAVIORS) })
  .meta({ id: 'CardBehavior' });

export const testHelpersResource: Resource = {
  tag: {
    name: 'Test helpers',
    description:
      'Controls of the sandbox payment provider for test mode, to exercise failure paths such as dunning. Live ' +
      'keys get 403.',
  },
  prefixes: ['/test-helpers'],
  routes: ({ billing }) => [
    defineRoute({
      method: 'post',
      path: '/customers/:customer_id/card',
      operationId: 'setTestCardBehavior',
      summary: "Make the customer's saved test card succeed or fail from now on",
      description:
        'Every later charge of the card (renewals, dunning retries, `POST /invoices/{id}/pay`) succeeds, is ' +
        'declined or fails for insufficient funds. With the test clock this plays a whole dunning cycle in ' +
        'seconds. A customer without a saved card (no paid checkout yet) is a 400.',
      auth: 'apiKey',
      params: z.object({ customer_id: idParam('Customer') }),
      body: CardBehaviorBody,
      bodyExample: { behavior: 'insufficient_funds' },
      errors: {
        400: 'The customer has no saved card',
        403: 'Test helpers exist in test mode only',
        404: 'Customer not found',
      },
      response: { status: 200, description: 'The card behavior now in force', schema: CardBehaviorSchema },
      responseExample: { customer_id: EXAMPLE.customerId, behavior: 'insufficient_funds' },
      async handle({ auth: { apiKey }, params, body }) {
        const reply = await billing.setCardBehavior({
          scope: scopeOf(apiKey),
          customerId: params.customer_id,
          behavior: body.behavior,
        });
        return { customer_id: reply.customerId, behavior: reply.behavior as (typeof CARD_BEHAVIORS)[number] };
      },
    }),
  ],
};
