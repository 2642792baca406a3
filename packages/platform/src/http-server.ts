import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export interface RunningHttpServer {
  port: number;
  /**
   * Stops accepting; in-flight requests finish (for up to `graceMs`, then their connections are
   * closed), and neither idle keep-alive sockets nor a client's steady stream of requests on one
   * hold us open.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * What a request node's HTTP parser refuses (a bad Content-Length, a bad method, headers over the
 * size limit) gets: a JSON {"detail"} like every other refusal, instead of node's empty answer.
 */
function answerUnparsable(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, detail] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'Request headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'The request was not received in time']
        : [400, 'Bad Request', 'Malformed HTTP request'];
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Listens on `port` (0 = any free one) and resolves once it accepts connections. */
export async function listenHttp(app: RequestListener, port: number): Promise<RunningHttpServer> {
  const server = createServer(app);
  server.on('clientError', answerUnparsable);
  let closing = false;
  // Once closing, each answer ends its connection, so a busy keep-alive client moves elsewhere.
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (closing) res.shouldKeepAlive = false;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    async close(graceMs = 5_000) {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Connections busy at close() become idle as their answers end: close those too.
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      const cutOff = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearInterval(idle);
      clearTimeout(cutOff);
    },
  };
}

/** A request body larger than readRawBody's limit. */
export class BodyTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`Request body larger than ${limitBytes} bytes`);
  }
}

/**
 * The exact bytes of a request body, for handlers answered before any framework (the payment
 * provider's webhooks, whose signature covers the raw body). Rejects with BodyTooLargeError past
 * `limitBytes`, without buffering the rest.
 */
export function readRawBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        req.off('data', onData);
        req.resume();
        reject(new BodyTooLargeError(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * readRawBody for a handler that answers itself: the body, or undefined once it has answered
 * 413 (past the limit) or 400 (the body could not be read) with a JSON detail.
 */
export async function readRawBodyOrRefuse(
  req: IncomingMessage,
  res: ServerResponse,
  limitBytes: number,
): Promise<Buffer | undefined> {
  try {
    return await readRawBody(req, limitBytes);
  } catch (err) {
    if (err instanceof BodyTooLargeError) sendJson(res, 413, { detail: 'Request body too large' });
    else sendJson(res, 400, { detail: 'Request body could not be read' });
    return undefined;
  }
}

/** A JSON answer on a bare node:http response. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** Whether a bare node:http request is a POST to exactly `path` (a query string allowed). */
export function isPostTo(req: IncomingMessage, path: string): boolean {
  return req.method === 'POST' && (req.url === path || req.url?.startsWith(`${path}?`) === true);
}
