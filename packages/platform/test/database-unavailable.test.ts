import {
  credentials,
  makeGenericClientConstructor,
  ServerCredentials,
  status as GrpcStatus,
  type CallOptions,
  type Client,
  type ClientUnaryCall,
  type Metadata,
  type ServiceDefinition,
  type ServiceError,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { Sequelize } from 'sequelize-typescript';
import {
  createLogger,
  createPromiseClient,
  isDatabaseUnavailable,
  isGrpcServiceError,
  startGrpcServer,
  unaryService,
  type PromiseClient,
  type RunningGrpcServer,
} from '@billing/platform';
import { adminClient, freePort, TEST_DATABASE_URL } from '@billing/testing';

const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
};
const definition: ServiceDefinition = {
  query: {
    path: '/test.Database/Query',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};
type QueryClient = Client & {
  query(
    request: object,
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: (error: ServiceError | null, response: object) => void,
  ): ClientUnaryCall;
};

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
  let server: RunningGrpcServer;
  let client: PromiseClient<QueryClient>;
  /** What the next call's handler does. */
  let work: () => Promise<unknown>;
  const sequelizes: Sequelize[] = [];

  const database = (url: string) => {
    const sequelize = new Sequelize(url, { dialect: 'postgres', logging: false, pool: { max: 1, min: 0 } });
    sequelizes.push(sequelize);
    return sequelize;
  };

  beforeAll(async () => {
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [
        {
          name: 'test.Database',
          definition,
          implementation: unaryService<UntypedServiceImplementation>(
            { query: async () => ({ result: await work() }) },
            createLogger('test', 'silent'),
          ),
        },
      ],
      maxConnectionAgeMs: 60_000,
      maxConnectionAgeGraceMs: 1000,
      transport: {
        mutualTls: false,
        serverCredentials: ServerCredentials.createInsecure(),
        channelCredentials: credentials.createInsecure(),
      },
    });
    const Constructor = makeGenericClientConstructor(definition, 'Database') as unknown as new (
      ...args: ConstructorParameters<typeof Client>
    ) => QueryClient;
    client = createPromiseClient(Constructor, `127.0.0.1:${server.port}`, 10_000, credentials.createInsecure());
  });

  afterAll(async () => {
    client.close();
    await server.shutdown(1000);
    await Promise.all(sequelizes.map((s) => s.close().catch(() => undefined)));
  });

  it('is UNAVAILABLE when the server refuses the connection (down, or restarting)', async () => {
    const url = new URL(TEST_DATABASE_URL);
    url.port = String(await freePort());
    const down = database(url.toString());
    work = () => down.query('SELECT 1');
    expect(await statusOf(client.query({}))).toBe(GrpcStatus.UNAVAILABLE);
  });

  it('is UNAVAILABLE when the server ends the connection under a query (shutdown, crash)', async () => {
    const sequelize = database(TEST_DATABASE_URL);
    let thrown: unknown;
    work = () =>
      sequelize.query('SELECT pg_sleep(30.0417)').catch((err: unknown) => {
        thrown = err;
        throw err;
      });
    const call = statusOf(client.query({}));
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
    await expect(client.query({})).resolves.toBeDefined();
  });

  it('stays INTERNAL for a query that fails for any other reason', async () => {
    const sequelize = database(TEST_DATABASE_URL);
    work = () => sequelize.query('SELECT * FROM no_such_table_here');
    expect(await statusOf(client.query({}))).toBe(GrpcStatus.INTERNAL);
    work = () => Promise.reject(new Error('a bug'));
    expect(await statusOf(client.query({}))).toBe(GrpcStatus.INTERNAL);
  });
});
