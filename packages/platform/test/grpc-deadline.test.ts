import type { CallContext } from '@billing/platform';
import { startOneMethodGrpc, type OneMethodGrpc } from '@billing/testing';

/**
 * A served call's deadline reaches its handler (CallContext.deadline), and a client call can be
 * given that very deadline (CallOverrides.deadline): how catalog's coupon workflows call billing
 * within the gateway's budget (services/catalog/src/workflows/steps/billing.steps.ts).
 */
describe('gRPC deadlines handed on', () => {
  let grpc: OneMethodGrpc;
  const seen: (Date | undefined)[] = [];

  beforeAll(async () => {
    grpc = await startOneMethodGrpc({
      service: 'Deadlines',
      async handler(_request: unknown, context: CallContext) {
        seen.push(context.deadline);
        return {};
      },
      clientDeadlineMs: 3000,
    });
  });

  afterAll(async () => {
    await grpc.close();
  });

  beforeEach(() => {
    seen.length = 0;
  });

  it("the handler sees the caller's deadline (the client's default one here)", async () => {
    const sent = Date.now();
    await grpc.call({});
    expect(seen).toHaveLength(1);
    // grpc-timeout carries what is left, which the server adds to its own clock: give or take
    // the time on the wire.
    expect(Math.abs(seen[0]!.getTime() - (sent + 3000))).toBeLessThan(500);
  });

  it('an absolute deadline given to a call wins over the default', async () => {
    const deadline = new Date(Date.now() + 20_000);
    await grpc.call({}, { deadline });
    expect(Math.abs(seen[0]!.getTime() - deadline.getTime())).toBeLessThan(500);
  });
});
