import { queryDatabase, startPlatform, type PlatformUnderTest } from '@billing/testing';
import { gatewayApi, ISO_UTC, registerMerchant, UUID, type Api, type RegisteredMerchant } from './support/api';

const PATH = '/api/v1/webhooks';
/** A public address as an IP literal: no DNS needed, and the SSRF guard lets it through. */
const PUBLIC_URL = 'https://93.184.216.34/billing-hooks';

describe('webhook registrations (gateway -> notification over gRPC -> PostgreSQL)', () => {
  let platform: PlatformUnderTest;
  let api: Api;
  let acme: RegisteredMerchant;
  let other: RegisteredMerchant;

  const as = (m: RegisteredMerchant, mode: 'test' | 'live' = 'test') => ({
    apiKey: mode === 'test' ? m.testKey : m.liveKey,
    token: m.token,
  });
  const register = (m: RegisteredMerchant, body: Record<string, unknown>, mode: 'test' | 'live' = 'test') =>
    api('POST', PATH, { ...as(m, mode), body });

  beforeAll(async () => {
    platform = await startPlatform({ only: ['identity', 'notification', 'gateway'] });
    api = gatewayApi(platform.gatewayUrl);
    [acme, other] = await Promise.all([registerMerchant(api, 'hooks'), registerMerchant(api, 'hooks-other')]);
  });
  afterAll(() => platform?.stop());

  it('registers a webhook: 201 with its secret once; the list never shows secrets', async () => {
    const created = await register(acme, {
      url: PUBLIC_URL,
      events: ['invoice.paid', 'subscription.cancelled', 'invoice.paid'],
      description: ' Billing sync ',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID),
      url: PUBLIC_URL,
      events: ['invoice.paid', 'subscription.cancelled'],
      description: 'Billing sync',
      is_active: true,
      livemode: false,
      created_at: expect.stringMatching(ISO_UTC),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const all = await register(acme, { url: `${PUBLIC_URL}/all`, events: ['*'] });
    expect(all.body.events).toEqual(['*']);

    const listed = await api('GET', PATH, as(acme));
    expect(listed.status).toBe(200);
    expect(listed.body.map((w: { id: string }) => w.id)).toEqual([all.body.id, created.body.id]);
    const { secret: _secret, ...withoutSecret } = created.body;
    expect(listed.body[1]).toEqual(withoutSecret);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');

    // At rest the secret is sealed, not stored as issued.
    const rows = await queryDatabase<{ secret_sealed: string }>(
      platform.database('notification'),
      `SELECT secret_sealed FROM webhooks WHERE id = '${created.body.id}'`,
    );
    expect(rows[0].secret_sealed).not.toContain(created.body.secret.slice(6));
  });

  it('refuses unknown events and an empty list with 422 by index, nothing stored', async () => {
    const before = (await api('GET', PATH, as(other))).body.length;
    const unknown = await register(other, { url: PUBLIC_URL, events: ['invoice.paid', 'invoice.exploded'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'events', 1], type: 'enum', input: 'invoice.exploded' }),
    ]);
    const empty = await register(other, { url: PUBLIC_URL, events: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0].loc).toEqual(['body', 'events']);
    const missing = await register(other, { events: ['invoice.paid'] });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'missing' });
    expect((await api('GET', PATH, as(other))).body).toHaveLength(before);
  });

  it.each([
    ['http://93.184.216.34/hook', 'url_scheme'],
    ['https://127.0.0.1/hook', 'url_forbidden_address'],
    ['https://localhost/hook', 'url_forbidden_address'],
    ['https://93.184.216.34:8443/hook', 'url_port'],
    ['https://10.0.0.5/hook', 'url_forbidden_address'],
    ['https://192.168.1.20/hook', 'url_forbidden_address'],
    ['https://169.254.169.254/latest/meta-data', 'url_forbidden_address'],
    ['https://[::1]/hook', 'url_forbidden_address'],
    ['https://[::ffff:127.0.0.1]/hook', 'url_forbidden_address'],
    ['https://user:secret@93.184.216.34/hook', 'url_credentials'],
    ['https://no-such-host.invalid/hook', 'url_unresolvable'],
    ['not a url', 'url_parsing'],
  ])('refuses %s at registration (%s): 422 on body.url, nothing stored', async (url, type) => {
    const before = (await api('GET', PATH, as(acme))).body.length;
    const res = await register(acme, { url, events: ['invoice.paid'] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'url'], type })]);
    expect((await api('GET', PATH, as(acme))).body).toHaveLength(before);
  });

  it('rotates the secret: 200 {id, secret}, a new one each time', async () => {
    const created = await register(acme, { url: PUBLIC_URL, events: ['refund.processed'] });
    const rotated = await api('POST', `${PATH}/${created.body.id}/rotate-secret`, as(acme));
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ id: created.body.id, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.body.secret).not.toBe(created.body.secret);
  });

  it('deletes a webhook: 204, then 404; other merchant 403, other mode or malformed 404', async () => {
    const created = await register(acme, { url: PUBLIC_URL, events: ['invoice.created'] });
    const id = created.body.id as string;
    expect((await api('DELETE', `${PATH}/${id}`, as(other))).status).toBe(403);
    expect((await api('POST', `${PATH}/${id}/rotate-secret`, as(other))).status).toBe(403);
    expect((await api('DELETE', `${PATH}/${id}`, as(acme, 'live'))).status).toBe(404);
    expect((await api('DELETE', `${PATH}/not-an-id`, as(acme))).status).toBe(404);
    const deleted = await api('DELETE', `${PATH}/${id}`, as(acme));
    expect(deleted.status).toBe(204);
    expect((await api('DELETE', `${PATH}/${id}`, as(acme))).status).toBe(404);
    expect((await api('GET', PATH, as(acme))).body.map((w: { id: string }) => w.id)).not.toContain(id);
  });

  it('keeps modes apart: a live webhook is invisible to the test key', async () => {
    const live = await register(acme, { url: PUBLIC_URL, events: ['invoice.paid'] }, 'live');
    expect(live.status).toBe(201);
    expect(live.body.livemode).toBe(true);
    expect((await api('GET', PATH, as(acme))).body.map((w: { id: string }) => w.id)).not.toContain(live.body.id);
    expect((await api('GET', PATH, as(acme, 'live'))).body.map((w: { id: string }) => w.id)).toEqual([live.body.id]);
  });

  it('takes the API key and the JWT of the same merchant on every route', async () => {
    const hook = (await register(acme, { url: PUBLIC_URL, events: ['invoice.paid'] })).body;
    const routes: [string, string, unknown?][] = [
      ['POST', PATH, { url: PUBLIC_URL, events: ['invoice.paid'] }],
      ['GET', PATH],
      ['DELETE', `${PATH}/${hook.id}`],
      ['POST', `${PATH}/${hook.id}/rotate-secret`],
    ];
    for (const [method, path, body] of routes) {
      const keyOnly = await api(method, path, { apiKey: acme.testKey, body });
      const tokenOnly = await api(method, path, { token: acme.token, body });
      const foreignKey = await api(method, path, { apiKey: other.testKey, token: acme.token, body });
      expect([method, path, keyOnly.status, tokenOnly.status, foreignKey.status]).toEqual([
        method,
        path,
        401,
        401,
        403,
      ]);
    }
    expect((await api('GET', PATH, as(acme))).body.map((w: { id: string }) => w.id)).toContain(hook.id);
  });

  it('documents the routes in /openapi.json', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/webhooks',
        '/api/v1/webhooks/{webhook_id}',
        '/api/v1/webhooks/{webhook_id}/rotate-secret',
      ]),
    );
  });
});
