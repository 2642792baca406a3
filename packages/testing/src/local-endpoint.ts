import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { freePort } from './ports';

export interface LocalEndpoint {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  close(): Promise<void>;
}

/**
 * An HTTP server on a free loopback port that reads each request's whole body and hands it to
 * `respond` (a merchant's site, a webhook receiver). Responses `respond` keeps open (a hanging
 * receiver) are the caller's to end before close() resolves.
 */
export async function listenLocally(
  respond: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void,
): Promise<LocalEndpoint> {
  const port = await freePort();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => respond(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
