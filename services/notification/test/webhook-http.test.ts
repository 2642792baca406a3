import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookHttp } from '../src/delivery/webhook-http';

describe('WebhookHttp: the SSRF guard where the connection is made, and the attempt timeout', () => {
  let server: Server;
  let port = 0;
  const hits: string[] = [];
  /** Answers never finished; ended before the server closes. */
  const hanging: ServerResponse[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/silent') return void hanging.push(res);
      if (req.url === '/redirect') return void res.writeHead(302, { location: '/elsewhere' }).end();
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    for (const res of hanging) res.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses a loopback IP literal and a host resolving to loopback, before connecting', async () => {
    const http = new WebhookHttp({ timeoutMs: 1000, allowInsecure: false });
    try {
      const literal = await http.post(`http://127.0.0.1:${port}/literal`, '{}', {});
      expect(literal).toMatchObject({ statusCode: null, error: 'forbidden address 127.0.0.1' });
      const named = await http.post(`http://localhost:${port}/named`, '{}', {});
      expect(named).toMatchObject({ statusCode: null, error: 'EFORBIDDENADDRESS' });
      const mapped = await http.post(`http://[::ffff:127.0.0.1]:${port}/mapped`, '{}', {});
      expect(mapped.statusCode).toBeNull();
      expect(hits).toEqual([]);
    } finally {
      await http.close();
    }
  });

  it('with ALLOW_INSECURE_WEBHOOKS reaches loopback; a redirect is not followed (an attempt that failed)', async () => {
    const http = new WebhookHttp({ timeoutMs: 1000, allowInsecure: true });
    try {
      expect(await http.post(`http://localhost:${port}/ok`, '{}', {})).toMatchObject({ statusCode: 200, error: null });
      expect(await http.post(`http://127.0.0.1:${port}/redirect`, '{}', {})).toMatchObject({ statusCode: 302 });
      expect(hits).toEqual(['/ok', '/redirect']);
    } finally {
      await http.close();
    }
  });

  it('logs a receiver that never answers as no answer within the timeout (one timer, the attempt signal)', async () => {
    const http = new WebhookHttp({ timeoutMs: 300, allowInsecure: true });
    try {
      for (let k = 0; k < 3; k++) {
        const outcome = await http.post(`http://127.0.0.1:${port}/silent`, '{}', {});
        expect([outcome.statusCode, outcome.error]).toEqual([null, 'no answer within 300 ms']);
        expect(outcome.durationMs).toBeGreaterThanOrEqual(250);
      }
    } finally {
      await http.close();
    }
  });
});
