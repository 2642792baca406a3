import { status as GrpcStatus } from '@grpc/grpc-js';
import { Sequelize } from 'sequelize-typescript';
import { isDatabaseUnavailable, isGrpcServiceError } from '@billing/platform';
import { adminClient, freePort, startOneMethodGrpc, TEST_DATABASE_URL, type OneMethodGrpc } from '@billing/testing';

/** The gRPC status a failed call ended with. */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (err) {
    if (isGrpcServiceError(err)) return err.code;
    throw err;
  }
  throw new Error('the call succeeded');
}

/**
 * A database that restarts or fails over under a service (docs/chaos.md): what its handlers then
 * throw is answered UNAVAILABLE, which the gateway turns into a 503 with Retry-After, never
 * INTERNAL (a 500); any other failure still is INTERNAL.
 */
describe('a gRPC handler whose database is unavailable', () => {
  let grpc: OneMethodGrpc;
  /** What the next call's handler does. */
  let work: () => Promise<unknown>;
  const sequelizes: Sequelize[] = [];

  const database = (url: string) => {
    const sequelize = new Sequelize(url, { dialect: 'postgres', logging: false, pool: { max: 1, min: 0 } });
    sequelizes.push(sequelize);
    return sequelize;
  };

  beforeAll(async () => {
    grpc = await startOneMethodGrpc({
      service: 'Database',
      handler: async () => ({ result: await work() }),
      clientDeadlineMs: 10_000,
    });
  });

  afterAll(async () => {
    await grpc.close();
    await Promise.all(sequelizes.map((s) => s.close().catch(() => undefined)));
  });

  it('is UNAVAILABLE when the server refuses the connection (down, or restarting)', async () => {
    const url = new URL(TEST_DATABASE_URL);
    url.port = String(await freePort());
    const down = database(url.toString());
    work = () => down.query('SELECT 1');
    expect(await statusOf(grpc.call())).toBe(GrpcStatus.UNAVAILABLE);
  });

  it('is UNAVAILABLE when the server ends the connection under a query (shutdown, crash)', async () => {
    const sequelize = database(TEST_DATABASE_URL);
    let thrown: unknown;
    work = () =>
      sequelize.query('SELECT pg_sleep(30.0417)').catch((err: unknown) => {
        thrown = err;
        throw err;
      });
    const call = statusOf(grpc.call());
    // What an immediate or fast shutdown does to every backend: 57P01 admin_shutdown.
    const admin = await adminClient();
    try {
      for (let terminated = 0; terminated === 0;) {
        const { rowCount } = await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30.0417)' AND state = 'active'",
        );
        terminated = rowCount ?? 0;
      }
    } finally {
      await admin.end();
    }
    expect(await call).toBe(GrpcStatus.UNAVAILABLE);
    expect(isDatabaseUnavailable(thrown)).toBe(true);
    // The pool drops the dead connection: the next query works on a new one.
    work = () => sequelize.query('SELECT 1');
    await expect(grpc.call()).resolves.toBeDefined();
  });

  it('stays INTERNAL for a query that fails for any other reason', async () => {
    const sequelize = database(TEST_DATABASE_URL);
    work = () => sequelize.query('SELECT * FROM no_such_table_here');
    expect(await statusOf(grpc.call())).toBe(GrpcStatus.INTERNAL);
    work = () => Promise.reject(new Error('a bug'));
    expect(await statusOf(grpc.call())).toBe(GrpcStatus.INTERNAL);
  });
});
