import { sharedPlatform, type SharedPlatform } from '@billing/testing';
import { gatewayApi, registerMerchant, uniqueEmail, type Api } from './support/api';

let platform: SharedPlatform;
let api: Api;

beforeAll(async () => {
  platform = await sharedPlatform();
  api = gatewayApi(platform.gatewayUrl);
});

afterAll(() => platform?.stop());

describe('request bodies', () => {
  it('refuses a body over 1 MiB with 413 {detail}', async () => {
    const huge = JSON.stringify({
      email: uniqueEmail(),
      business_name: 'x'.repeat(1.1 * 1024 * 1024),
      password: 'password',
    });

    const res = await api('POST', '/api/v1/auth/register', { raw: huge });

    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });

  it('answers malformed JSON with a 422 json_invalid item', async () => {
    const res = await api('POST', '/api/v1/auth/login', { raw: '{"email": "a@b.co", "password": ' });

    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({
        loc: expect.arrayContaining(['body']),
        msg: 'JSON decode error',
        type: 'json_invalid',
      }),
    ]);
  });

  it('answers JSON that is not an object, a wrong content type and a missing body with 422', async () => {
    const array = await api('POST', '/api/v1/auth/login', { raw: '["a@b.co", "secret"]' });
    const text = await api('POST', '/api/v1/auth/login', {
      raw: '{"email": "a@b.co", "password": "secret"}',
      contentType: 'text/plain',
    });
    const none = await api('POST', '/api/v1/auth/login');

    for (const res of [array, text]) {
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'model_attributes_type' })]);
    }
    expect(none.status).toBe(422);
    expect(none.body.detail).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  });

  it('answers wrong field types with 422 items in the published shape', async () => {
    const res = await api('POST', '/api/v1/auth/register', {
      body: { email: 'not-an-email', business_name: ['a'], password: 12345678 },
    });

    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'email'], msg: expect.any(String), type: 'value_error', input: 'not-an-email' },
      { loc: ['body', 'business_name'], msg: 'Input should be a valid string', type: 'string_type', input: ['a'] },
      // Secrets are not echoed back.
      { loc: ['body', 'password'], msg: 'Input should be a valid string', type: 'string_type' },
    ]);
  });

  it('ignores unknown JSON fields', async () => {
    const merchant = await registerMerchant(api);

    const res = await api('PATCH', '/api/v1/merchants/me', {
      token: merchant.token,
      body: { business_name: 'Still fine', is_verified: true, id: 'hijack' },
    });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: merchant.id, business_name: 'Still fine', is_verified: false });
  });
});

describe('routing', () => {
  it('answers an unknown route with a JSON 404', async () => {
    for (const path of ['/api/v1/nothing-here', '/nowhere', '/api/v2/auth/login']) {
      const res = await api('GET', path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toEqual({ detail: expect.any(String) });
    }
  });

  it('answers /healthz with {"status":"ok"}', async () => {
    const res = await api('GET', '/healthz');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('gives every response a request id, keeping a sane one from the caller', async () => {
    const own = await api('GET', '/healthz', { headers: { 'x-request-id': 'support-ticket-42' } });
    const fresh = await api('GET', '/healthz');

    expect(own.headers.get('x-request-id')).toBe('support-ticket-42');
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('API description', () => {
  it('serves OpenAPI 3.1, version 0.1.0, with every route, both security schemes and the 422 schema', async () => {
    const res = await api('GET', '/openapi.json');

    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
    const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /api/v1/auth/register',
        'POST /api/v1/auth/login',
        'GET /api/v1/auth/me',
        'GET /api/v1/merchants/me',
        'PATCH /api/v1/merchants/me',
        'DELETE /api/v1/merchants/me',
        'POST /api/v1/projects',
        'GET /api/v1/projects',
        'GET /api/v1/projects/current',
        'GET /api/v1/projects/{project_id}',
        'POST /api/v1/merchants/projects',
        'GET /api/v1/merchants/projects',
        'GET /api/v1/merchants/projects/{project_id}',
        'POST /api/v1/api-keys',
        'GET /api/v1/api-keys',
        'DELETE /api/v1/api-keys/{api_key_id}',
        'PATCH /api/v1/api-keys/{api_key_id}',
        'POST /api/v1/merchants/api-keys',
        'GET /api/v1/merchants/api-keys',
        'DELETE /api/v1/merchants/api-keys/{api_key_id}',
        'PATCH /api/v1/merchants/api-keys/{api_key_id}',
      ]),
    );
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    expect(doc.components.securitySchemes.BearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.HTTPValidationError).toBeDefined();
    const register = doc.paths['/api/v1/auth/register'].post;
    expect(register.security).toEqual([]);
    expect(register.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RegisterRequest',
    });
    expect(doc.components.schemas.RegisterRequest.properties.password.minLength).toBe(8);
    expect(register.responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Registration',
    });
    expect(register.responses['422'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/HTTPValidationError',
    });
    expect(doc.paths['/api/v1/projects/current'].get.security).toEqual([{ ApiKey: [] }]);
    expect(doc.paths['/api/v1/projects'].get.security).toEqual([{ BearerAuth: [] }]);
  });

  it('renders the document at /docs as HTML', async () => {
    const res = await api('GET', '/docs');

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('swagger-ui');
  });
});
