import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { domainErrorToGrpc, DomainError, type Logger } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { CatalogDeps } from '../src/catalog-deps';
import { createWorkflow, type WorkflowContext, type WorkflowStep } from '../src/workflows/create-workflow';
import { billingChangedNothing, createSubscriptionStep } from '../src/workflows/steps/billing.steps';
import { redemptionKeyOf } from '../src/workflows/steps/redeem-coupon.step';

/**
 * The pure part of catalog's coupon workflows (docs/api-behaviour.md §19): which of billing's
 * answers give a redemption back, the redemption key, and how a run compensates its steps. The
 * workflows end to end, on real processes: gateway/test/coupons.test.ts and
 * gateway/test/crashes-and-outages.test.ts.
 */

const grpcError = (code: status, details = 'refused'): ServiceError =>
  Object.assign(new Error(details), { code, details, metadata: new Metadata() });

/** A billing decline as billing answers it: FAILED_PRECONDITION with reason payment_required. */
const declined = (): ServiceError =>
  Object.assign(new Error('Declined'), domainErrorToGrpc(new DomainError('payment_required', 'Declined')));

describe("billing's answers that give a redemption back", () => {
  it.each([
    ['INVALID_ARGUMENT', true],
    ['FAILED_PRECONDITION', true],
    ['NOT_FOUND', true],
    ['PERMISSION_DENIED', true],
    ['ALREADY_EXISTS', true],
    ['ABORTED', true],
    ['UNAVAILABLE', false],
    ['DEADLINE_EXCEEDED', false],
    ['INTERNAL', false],
    ['UNKNOWN', false],
    ['CANCELLED', false],
    ['RESOURCE_EXHAUSTED', false],
  ] as const)('%s: changed nothing = %p', (name, changedNothing) => {
    expect(billingChangedNothing(grpcError(status[name]))).toBe(changedNothing);
  });

  it('a declined first charge changed nothing; an error that is no gRPC answer leaves the outcome unknown', () => {
    expect(billingChangedNothing(declined())).toBe(true);
    expect(billingChangedNothing(new Error('socket hang up'))).toBe(false);
    expect(billingChangedNothing(undefined)).toBe(false);
  });
});

describe('the redemption key', () => {
  it("is the request's Idempotency-Key under its API key, so that a retry finds its redemption", () => {
    expect(redemptionKeyOf('subscription', 'key-1', 'idem-1')).toBe('subscription:key-1:idem-1');
    expect(redemptionKeyOf('discount:sub-1', 'key-1', 'idem-1')).toBe('discount:sub-1:key-1:idem-1');
    expect(redemptionKeyOf('subscription', 'key-2', 'idem-1')).not.toBe(
      redemptionKeyOf('subscription', 'key-1', 'idem-1'),
    );
  });

  it('is new for every request without an Idempotency-Key', () => {
    const first = redemptionKeyOf('subscription', 'key-1', undefined);
    expect(first).toMatch(/^subscription:[0-9a-f-]{36}$/);
    expect(redemptionKeyOf('subscription', 'key-1', undefined)).not.toBe(first);
  });
});

describe('a workflow run compensates its steps', () => {
  type Deps = Record<string, never>;
  let journal: string[];
  let logged: [Record<string, unknown>, string][];

  const context = (): WorkflowContext<Deps> => ({
    deps: {},
    requestId: 'req-1',
    logger: {
      error: (fields: Record<string, unknown>, message: string) => logged.push([fields, message]),
    } as unknown as Logger,
  });

  /** A step that records what it did and what undid it; `undoFails` makes its compensation throw. */
  const recorded = (
    name: string,
    options: { leavesSomethingToUndo?: boolean; undoFails?: boolean } = {},
  ): WorkflowStep<void, string, string, Deps> => ({
    name,
    async invoke() {
      journal.push(`do ${name}`);
      return { output: name, compensateInput: options.leavesSomethingToUndo === false ? undefined : name };
    },
    compensation: {
      async undo(input) {
        journal.push(`undo ${input}`);
        if (options.undoFails) throw new Error(`${input} could not be undone`);
      },
      failureMessage: `${name} not undone`,
      logFields: (input) => ({ undone: input }),
    },
  });

  const failing = (err: unknown): WorkflowStep<void, string, never, Deps> => ({
    name: 'fail',
    async invoke() {
      journal.push('do fail');
      throw err;
    },
    changedNothing: billingChangedNothing,
  });

  const workflowOf = (...steps: WorkflowStep<void, string, string, Deps>[]) =>
    createWorkflow('test-workflow', async (_input: void, run) => {
      for (const step of steps) await run.step(step, undefined);
      return 'done';
    });

  beforeEach(() => {
    journal = [];
    logged = [];
  });

  it('runs every step in order and undoes nothing when all succeed', async () => {
    await expect(workflowOf(recorded('a'), recorded('b'))(context(), undefined)).resolves.toBe('done');
    expect(journal).toEqual(['do a', 'do b']);
  });

  it('a failure that changed nothing undoes the steps before it, most recent first, and is the answer', async () => {
    const err = declined();
    await expect(workflowOf(recorded('a'), recorded('b'), failing(err))(context(), undefined)).rejects.toBe(err);
    expect(journal).toEqual(['do a', 'do b', 'do fail', 'undo b', 'undo a']);
  });

  it('a failure whose outcome is unknown (a deadline, UNAVAILABLE) undoes nothing', async () => {
    for (const code of [status.DEADLINE_EXCEEDED, status.UNAVAILABLE]) {
      journal = [];
      const err = grpcError(code);
      await expect(workflowOf(recorded('a'), failing(err))(context(), undefined)).rejects.toBe(err);
      expect(journal).toEqual(['do a', 'do fail']);
    }
  });

  it('a step whose run left nothing of its own (an earlier request made it) is not undone', async () => {
    await expect(
      workflowOf(
        recorded('a'),
        recorded('found', { leavesSomethingToUndo: false }),
        failing(declined()),
      )(context(), undefined),
    ).rejects.toMatchObject({ code: status.FAILED_PRECONDITION });
    expect(journal).toEqual(['do a', 'do found', 'do fail', 'undo a']);
  });

  it('an undo that fails is logged with the request id and its fields; the others still run; the answer stays', async () => {
    const err = declined();
    const run = workflowOf(recorded('a'), recorded('b', { undoFails: true }), failing(err));
    await expect(run(context(), undefined)).rejects.toBe(err);
    expect(journal).toEqual(['do a', 'do b', 'do fail', 'undo b', 'undo a']);
    expect(logged).toEqual([
      [
        {
          err: new Error('b could not be undone'),
          workflow: 'test-workflow',
          step: 'b',
          request_id: 'req-1',
          undone: 'b',
        },
        'b not undone',
      ],
    ]);
  });
});

describe("billing's steps", () => {
  it('call billing with the deadline of the call catalog answers, and a decline undoes what came before', async () => {
    const deadline = new Date(Date.now() + 20_000);
    const calls: unknown[] = [];
    const deps = {
      billing: {
        async createSubscription(request: billingV1.CreateSubscriptionRequest, overrides: unknown) {
          calls.push([request.customerId, overrides]);
          throw declined();
        },
      },
    } as unknown as CatalogDeps;
    const undone: string[] = [];
    const redeemed: WorkflowStep<void, string, string, CatalogDeps> = {
      name: 'redeem coupon',
      invoke: async () => ({ output: 'WELCOME25', compensateInput: 'key-1' }),
      compensation: {
        undo: async (key) => void undone.push(key),
        failureMessage: 'not given back',
        logFields: () => ({}),
      },
    };
    const workflow = createWorkflow('subscribe', async (customerId: string, run) => {
      await run.step(redeemed, undefined);
      return run.step(createSubscriptionStep, { customerId, metadata: {} });
    });
    const logger = { error: jest.fn() } as unknown as Logger;

    await expect(workflow({ deps, requestId: 'req-1', deadline, logger }, 'cus-1')).rejects.toMatchObject({
      code: status.FAILED_PRECONDITION,
      details: 'Declined',
    });
    expect(calls).toEqual([['cus-1', { deadline }]]);
    expect(undone).toEqual(['key-1']);
  });
});
