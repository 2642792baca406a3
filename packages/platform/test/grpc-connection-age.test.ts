import { Client, connectivityState, credentials, ServerCredentials } from '@grpc/grpc-js';
import { startGrpcServer, type RunningGrpcServer } from '@billing/platform';

/** Resolves with the channel's state once it leaves `from`, or rejects at the deadline. */
const nextState = (client: Client, from: connectivityState, deadlineMs: number) =>
  new Promise<connectivityState>((resolve, reject) =>
    client
      .getChannel()
      .watchConnectivityState(from, Date.now() + deadlineMs, (err) =>
        err ? reject(err) : resolve(client.getChannel().getConnectivityState(false)),
      ),
  );

describe('gRPC server maximum connection age', () => {
  let server: RunningGrpcServer;
  let client: Client;

  beforeAll(async () => {
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      services: [],
      maxConnectionAgeMs: 1000,
      maxConnectionAgeGraceMs: 500,
      // Plaintext: the connection's age is the point here, not who calls.
      transport: {
        mutualTls: false,
        serverCredentials: ServerCredentials.createInsecure(),
        channelCredentials: credentials.createInsecure(),
      },
    });
    client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure());
  });

  afterAll(async () => {
    client.close();
    await server.shutdown(1000);
  });

  // A client keeps a READY connection until the server ends it: without a maximum age, the pods
  // an autoscaler adds would never get calls from clients already connected (docs/deployment.md).
  it('closes a connection past GRPC_MAX_CONNECTION_AGE_MS, so the client connects (and resolves) again', async () => {
    await new Promise<void>((resolve, reject) =>
      client.waitForReady(Date.now() + 5000, (err) => (err ? reject(err) : resolve())),
    );
    const connectedAt = Date.now();
    expect(client.getChannel().getConnectivityState(false)).toBe(connectivityState.READY);
    const after = await nextState(client, connectivityState.READY, 10_000);
    expect(after).not.toBe(connectivityState.READY);
    // grpc-js ends a connection at its maximum age give or take 10% (jitter, so that clients
    // connected together do not all reconnect together), counted from the server's accept, a little
    // before the client saw READY: 1000 ms - 10% - that gap.
    expect(Date.now() - connectedAt).toBeGreaterThanOrEqual(800);
  });
});
