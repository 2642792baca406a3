import {
  credentials,
  makeGenericClientConstructor,
  ServerCredentials,
  type CallOptions,
  type Client,
  type ClientUnaryCall,
  type Metadata,
  type ServiceDefinition,
  type ServiceError,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import {
  createLogger,
  createPromiseClient,
  startGrpcServer,
  unaryService,
  type CallContext,
  type PromiseClient,
  type RunningGrpcServer,
} from '@billing/platform';

/** One unary method with JSON messages: the deadline is the point here, not the messages. */
const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
};
const definition: ServiceDefinition = {
  ping: {
    path: '/test.Deadlines/Ping',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};
type PingClient = Client & {
  ping(
    request: object,
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: (error: ServiceError | null, response: object) => void,
  ): ClientUnaryCall;
};

/**
 * A served call's deadline reaches its handler (CallContext.deadline), and a client call can be
 * given that very deadline (CallOverrides.deadline): how catalog's coupon workflows call billing
 * within the gateway's budget (services/catalog/src/workflows/steps/billing.steps.ts).
 */
describe('gRPC deadlines handed on', () => {
  let server: RunningGrpcServer;
  let client: PromiseClient<PingClient>;
  const seen: (Date | undefined)[] = [];

  beforeAll(async () => {
    const handlers = {
      async ping(_request: unknown, context: CallContext) {
        seen.push(context.deadline);
        return {};
      },
    };
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [
        {
          name: 'test.Deadlines',
          definition,
          implementation: unaryService<UntypedServiceImplementation>(handlers, createLogger('test', 'silent')),
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
    const PingClient = makeGenericClientConstructor(definition, 'Deadlines') as unknown as new (
      ...args: ConstructorParameters<typeof Client>
    ) => PingClient;
    client = createPromiseClient(PingClient, `127.0.0.1:${server.port}`, 3000, credentials.createInsecure());
  });

  afterAll(async () => {
    client.close();
    await server.shutdown(1000);
  });

  beforeEach(() => {
    seen.length = 0;
  });

  it("the handler sees the caller's deadline (the client's default one here)", async () => {
    const sent = Date.now();
    await client.ping({});
    expect(seen).toHaveLength(1);
    // grpc-timeout carries what is left, which the server adds to its own clock: give or take
    // the time on the wire.
    expect(Math.abs(seen[0]!.getTime() - (sent + 3000))).toBeLessThan(500);
  });

  it('an absolute deadline given to a call wins over the default', async () => {
    const deadline = new Date(Date.now() + 20_000);
    await client.ping({}, { deadline });
    expect(Math.abs(seen[0]!.getTime() - deadline.getTime())).toBeLessThan(500);
  });
});
