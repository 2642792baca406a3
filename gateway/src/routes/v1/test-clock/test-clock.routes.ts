import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { iso, scopeOf, timestamp } from '../common.schemas';

const TestClockSchema = z.object({ now: timestamp }).meta({ id: 'TestClock' });
const AdvanceTestClockBody = z
  .object({ to: z.iso.datetime({ offset: true }).meta({ description: 'The new test time; never backwards' }) })
  .meta({ id: 'AdvanceTestClockRequest' });

export const testClockResource: Resource = {
  tag: 'Test clock',
  prefixes: ['/test-clock'],
  routes: ({ billing, catalog, policy }) => [
    defineRoute({
      method: 'post',
      path: '/advance',
      summary: "Move the project's test-mode clock forward",
      description:
        'Test keys only (a live key is a 403). Renewals, trial ends, dunning retries and checkout-session ' +
        'expiries due by `to` are all processed before the answer. Moving backwards, or more than 2 years ' +
        "past the clock's time, is a 400 (advance in steps).",
      auth: 'apiKey',
      body: AdvanceTestClockBody,
      errors: [400, 403],
      response: { status: 200, description: 'The new test time', schema: TestClockSchema },
      async handle({ auth: { apiKey }, body }) {
        const scope = scopeOf(apiKey);
        const { now } = await billing.advanceTestClock({ scope, to: new Date(body.to) });
        // Billing owns the clock; catalog's and policy's copies follow it to billing's time right
        // now (the advance may have taken a while), so checkout sessions expire and policies are
        // created on the same clock.
        const { now: billingNow } = await billing.getTestClock({ scope });
        await Promise.all([
          catalog.advanceTestClock({ scope, to: billingNow }),
          policy.advanceTestClock({ scope, to: billingNow }),
        ]);
        return { now: iso(now, 'now') };
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      summary: "The project's test-mode time",
      description: 'Test keys only (a live key is a 403).',
      auth: 'apiKey',
      errors: [403],
      response: { status: 200, description: 'The test time', schema: TestClockSchema },
      async handle({ auth: { apiKey } }) {
        const { now } = await billing.getTestClock({ scope: scopeOf(apiKey) });
        return { now: iso(now, 'now') };
      },
    }),
  ],
};
