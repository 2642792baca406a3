import { z } from 'zod';
import { defineRoute, type Resource } from '../../../http/route';
import { iso, scopeOf, timestamp } from '../common.schemas';

const TestClockSchema = z.object({ now: timestamp }).meta({ id: 'TestClock' });
const AdvanceTestClockBody = z
  .object({ to: z.iso.datetime({ offset: true }).meta({ description: 'The new test time; never backwards' }) })
  .meta({ id: 'AdvanceTestClockRequest' });

const LIVE_KEY = 'Test clocks exist in test mode only';

export const testClockResource: Resource = {
  tag: {
    name: 'Test clock',
    description:
      "Each project's test mode runs on its own clock, which only moves when you move it: advance it a month and " +
      'the renewals, trial ends, dunning retries and checkout expiries of that month happen at once, with their ' +
      'invoices, charges and webhook events. Live mode runs on real time; live keys get 403 here.',
  },
  prefixes: ['/test-clock'],
  routes: ({ analytics, billing, catalog, policy }) => [
    defineRoute({
      method: 'post',
      path: '/advance',
      operationId: 'advanceTestClock',
      summary: "Move the project's test-mode clock forward",
      description:
        'Renewals, trial ends, dunning retries and checkout-session expiries due by `to` are all processed before ' +
        'the answer; their webhook events follow (deliveries run on real time). Moving backwards, ' +
        "or more than 2 years past the clock's time, is a 400: advance in steps.",
      auth: 'apiKey',
      body: AdvanceTestClockBody,
      bodyExample: { to: '2026-04-02T09:15:00Z' },
      errors: { 400: 'A test clock only moves forward', 403: LIVE_KEY },
      response: { status: 200, description: 'The new test time', schema: TestClockSchema },
      responseExample: { now: '2026-04-02T09:15:00.000Z' },
      async handle({ auth: { apiKey }, body }) {
        const scope = scopeOf(apiKey);
        const { now } = await billing.advanceTestClock({ scope, to: new Date(body.to) });
        // Billing owns the clock; catalog's, policy's and analytics' copies follow it to billing's
        // time right now (the advance may have taken a while), so checkout sessions expire,
        // policies are created and analytics' current month ends on the same clock
        // (docs/api-behaviour.md §25).
        const { now: billingNow } = await billing.getTestClock({ scope });
        await Promise.all([
          catalog.advanceTestClock({ scope, to: billingNow }),
          policy.advanceTestClock({ scope, to: billingNow }),
          analytics.advanceTestClock({ projectId: scope.projectId, to: iso(billingNow, 'now') }),
        ]);
        return { now: iso(now, 'now') };
      },
    }),
    defineRoute({
      method: 'get',
      path: '',
      operationId: 'getTestClock',
      summary: "The project's test-mode time",
      description:
        'The time test-mode records of the project are stamped with: real time plus every advance so far. It ' +
        'keeps running with real time between advances.',
      auth: 'apiKey',
      errors: { 403: LIVE_KEY },
      response: { status: 200, description: 'The test time', schema: TestClockSchema },
      responseExample: { now: '2026-04-02T09:15:00.000Z' },
      async handle({ auth: { apiKey } }) {
        const { now } = await billing.getTestClock({ scope: scopeOf(apiKey) });
        return { now: iso(now, 'now') };
      },
    }),
  ],
};
