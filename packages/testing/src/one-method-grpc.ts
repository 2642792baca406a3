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
import type { CallContext, CallOverrides } from '@billing/platform';
import { heavyPlatform } from './platform-processes';

/** A running server of one method, and a client of the platform's kind for it. */
export interface OneMethodGrpc {
  /** Calls the method as every service calls another (createPromiseClient: a deadline always). */
  call(request?: object, overrides?: CallOverrides): Promise<object>;
  close(): Promise<void>;
}

type CallClient = Client & {
  call(
    request: object,
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: (error: ServiceError | null, response: object) => void,
  ): ClientUnaryCall;
};

const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
};

/**
 * A gRPC server of one unary method with JSON messages, served the platform's way
 * (startGrpcServer, unaryService: its error mapping, its deadlines) on a free port, for suites
 * about what the platform does around a call, where the messages do not matter.
 */
export async function startOneMethodGrpc(options: {
  /** Names the service in its path: /test.<service>/Call. */
  service: string;
  handler(request: unknown, context: CallContext): Promise<object>;
  /** The client's deadline for a call that names none. */
  clientDeadlineMs: number;
}): Promise<OneMethodGrpc> {
  const { createLogger, createPromiseClient, startGrpcServer, unaryService } = await heavyPlatform();
  const definition: ServiceDefinition = {
    call: {
      path: `/test.${options.service}/Call`,
      requestStream: false,
      responseStream: false,
      requestSerialize: json.serialize,
      requestDeserialize: json.deserialize,
      responseSerialize: json.serialize,
      responseDeserialize: json.deserialize,
    },
  };
  const server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    services: [
      {
        name: `test.${options.service}`,
        definition,
        implementation: unaryService<UntypedServiceImplementation>(
          { call: options.handler },
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
  const Constructor = makeGenericClientConstructor(definition, options.service) as unknown as new (
    ...args: ConstructorParameters<typeof Client>
  ) => CallClient;
  const client = createPromiseClient(
    Constructor,
    `127.0.0.1:${server.port}`,
    options.clientDeadlineMs,
    credentials.createInsecure(),
  );
  return {
    call: (request = {}, overrides) => client.call(request, overrides),
    async close() {
      client.close();
      await server.shutdown(1000);
    },
  };
}
