import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { idParam, scopeOf } from '../common.schemas';

/** The sandbox card behaviors (contract 16.2); billing checks them again. */
const CARD_BEHAVIORS = ['succeed', 'decline', 'insufficient_funds'] as const;

const CardBehaviorBody = z.object({ behavior: z.enum(CARD_BEHAVIORS) }).meta({ id: 'CardBehaviorRequest' });
const CardBehaviorSchema = z
  .object({ customer_id: z.uuid(), behavior: z.enum(CARD_BEHAVIORS) })
  .meta({ id: 'CardBehavior' });

export const testHelpersResource: Resource = {
  tag: 'Test helpers',
  prefixes: ['/test-helpers'],
  routes: ({ billing }) => [
    defineRoute({
      method: 'post',
      path: '/customers/:customer_id/card',
      summary: "Make the customer's saved test card succeed or fail from now on",
      description: 'Test keys only (a live key is a 403); exercises dunning. A customer without a saved card is a 400.',
      auth: 'apiKey',
      params: z.object({ customer_id: idParam('Customer') }),
      body: CardBehaviorBody,
      errors: [400, 403, 404],
      response: { status: 200, description: 'The card behavior now in force', schema: CardBehaviorSchema },
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
