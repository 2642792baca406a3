import { createServer, type RequestListener } from 'node:http';

export interface RunningHttpServer {
  port: number;
  /** Stops accepting; in-flight requests finish, idle keep-alive sockets do not hold us open. */
  close(): Promise<void>;
}

/** Listens on `port` (0 = any free one) and resolves once it accepts connections. */
export async function listenHttp(app: RequestListener, port: number): Promise<RunningHttpServer> {
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
    },
  };
}
