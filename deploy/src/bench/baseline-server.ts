/**
 * The benchmark's baseline: a bare node:http server answering every request with a fixed JSON
 * body. It runs as a child process (started with fork) so that it does not share an event loop
 * with the load generator. Protocol: the parent sends {body}; we answer {port} once listening.
 */
import { createServer } from 'node:http';

interface Start {
  body: string;
}

process.once('message', (message: Start) => {
  const body = Buffer.from(message.body);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  // The parent going away (normally or not) ends the baseline too.
  process.on('disconnect', () => server.close(() => process.exit(0)));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
});
