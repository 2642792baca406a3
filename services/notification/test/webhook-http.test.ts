import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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

  it('times out even when garbage collection runs while the receiver is silent', async () => {
    // A timeout signal combined with AbortSignal.any could be collected before it fired, and the
    // attempt then hung for good; the attempt's own timer is held until it ends.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const http = new WebhookHttp({ timeoutMs: 300, allowInsecure: true });
    try {
      const attempts = Array.from({ length: 20 }, () => http.post(`http://127.0.0.1:${port}/silent`, '{}', {}));
      const collecting = setInterval(gc, 20);
      const outcomes = await Promise.race([
        Promise.all(attempts).finally(() => clearInterval(collecting)),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('an attempt outlived its timeout')), 5000).unref(),
        ),
      ]);
      expect(outcomes.map((o) => o.error)).toEqual(Array(20).fill('no answer within 300 ms'));
    } finally {
      await http.close();
    }
  });
});
