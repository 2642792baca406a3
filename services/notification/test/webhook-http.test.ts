import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookHttp } from '../src/delivery/webhook-http';

describe('WebhookHttp: the SSRF guard where the connection is made', () => {
  let server: Server;
  let port = 0;
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/redirect') return void res.writeHead(302, { location: '/elsewhere' }).end();
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

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
});
