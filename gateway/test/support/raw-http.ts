import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** Sent as is: already escaped (or deliberately malformed). */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface RawResponse {
  status: number;
  text: string;
}

/**
 * One request over node:http, path and headers untouched (fetch would normalize the path and
 * refuse some headers). Bounded by `timeoutMs`: a request the gateway never answers is a failure.
 */
export function sendRaw(baseUrl: string, req: RawRequest, timeoutMs = 30_000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  // node's client sends the body of a GET or DELETE without Content-Length (nor chunked framing),
  // so the server would read it as the next request: say its length.
  const headers =
    req.body === undefined ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) };
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let status: number | undefined;
    const answered = () => ({ status: status ?? 0, text: Buffer.concat(chunks).toString('utf8') });
    // A server may answer before reading a body it has no use for (GET /healthz with a megabyte)
    // and then close the connection while we are still writing: the answer counts.
    const failed = (err: Error) => (status === undefined ? reject(err) : resolve(answered()));
    const outgoing = request(
      // A connection per request: a reused one can be closed by the server's keep-alive timeout
      // just as a request starts, which would look like the gateway dropping it.
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent: false },
      (res) => {
        status = res.statusCode ?? 0;
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(answered()));
        res.on('error', failed);
      },
    );
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on('error', failed);
    outgoing.end(req.body);
  });
}

/** Writes `bytes` on a fresh TCP connection and returns the status and body of the first answer. */
export function sendBytes(baseUrl: string, bytes: string, timeoutMs = 10_000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = '';
    const timer = setTimeout(() => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(received)?.[1] ?? 0);
      const separator = received.indexOf('\r\n\r\n');
      resolve({ status, text: separator < 0 ? '' : received.slice(separator + 4) });
    });
  });
}
