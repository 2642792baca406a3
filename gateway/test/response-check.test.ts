import express from 'express';
import { z } from 'zod';
import { createLogger } from '@billing/platform';
import { defineRoute, mountRoutes, type AuthScheme } from '../src/http/route';
import { errorHandler } from '../src/middleware/errors';

/** With CHECK_RESPONSES (on in tests), a body that breaks its published schema is a loud 500. */
describe('response checking against the published schema', () => {
  const Thing = z.object({ id: z.uuid(), amount: z.number() });
  const route = (body: unknown) =>
    defineRoute({
      method: 'get',
      path: '/thing',
      operationId: 'getThing',
      summary: 'A thing',
      description: 'A thing, to check responses against.',
      auth: 'none',
      response: { status: 200, description: 'A thing', schema: Thing },
      responseExample: { id: '3f1c1a52-8d4e-4c57-9d0c-2c6f0e6f9a01', amount: 1.5 },
      handle: async () => body as { id: string; amount: number },
    });

  async function call(body: unknown, checkResponses: boolean) {
    const app = express();
    const router = express.Router();
    const none: Record<AuthScheme, express.RequestHandler[]> = { none: [], apiKey: [], jwt: [], dual: [] };
    // PUBLIC_ROUTES guards auth 'none'; mount under a path it lists.
    const mounted = [
      {
        path: '/auth/login',
        route: { ...route(body), path: '/auth/login', method: 'post' as const },
        tag: { name: 'Things', description: 'Things' },
        alias: false,
      },
    ];
    mountRoutes(router, mounted, none, checkResponses);
    app.use('/api/v1', router);
    app.use(errorHandler(createLogger('test', 'silent')));
    const server = app.listen(0);
    const port = (server.address() as { port: number }).port;
    try {
      return await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, { method: 'POST' });
    } finally {
      server.close();
    }
  }

  it('passes a body that matches', async () => {
    const res = await call({ id: '3f1c1a52-8d4e-4c57-9d0c-2c6f0e6f9a01', amount: 1.5 }, true);
    expect(res.status).toBe(200);
  });

  it('refuses a body that does not match, without leaking it', async () => {
    const res = await call({ id: 'not-a-uuid', amount: '1.5' }, true);
    expect(res.status).toBe(500);
    const body = (await res.json()) as { detail: string };
    expect(body.detail).not.toContain('not-a-uuid');
  });

  it('lets it through when checking is off (production default)', async () => {
    expect((await call({ id: 'x' }, false)).status).toBe(200);
  });
});
