import express, { type Express } from 'express';
import request from 'supertest';
import { createLogger } from '@billing/platform';
import { sharedPlatform, type SharedPlatform } from '@billing/testing';
import { ApiKeyCache } from '../src/auth/api-key-cache';
import { createIdentityClient, type IdentityClient } from '../src/clients/identity.client';
import { dualAuth } from '../src/middleware/auth';
import { errorHandler } from '../src/middleware/errors';
import { gatewayApi, registerMerchant, tamperSignature, type RegisteredMerchant } from './support/api';

/**
 * The dualAuth middleware on its own, mounted on an app of this test and talking to the real
 * identity service: every combination of credentials, apart from any route. The dual-auth
 * routes themselves are tested with their resources (cancellation-policies.test.ts).
 */
let platform: SharedPlatform;
let identity: IdentityClient;
let app: Express;
let merchant: RegisteredMerchant;
let other: RegisteredMerchant;

beforeAll(async () => {
  platform = await sharedPlatform();
  identity = createIdentityClient(platform.env.IDENTITY_GRPC_URL, 5000, platform.grpcCredentials('gateway'));
  app = express();
  app.get('/dual', dualAuth({ identity, apiKeyCache: new ApiKeyCache(5000) }), (req, res) => {
    res.json({
      merchant_id: req.auth?.merchant?.id,
      project_id: req.auth?.apiKey?.projectId,
      livemode: req.auth?.apiKey?.livemode,
    });
  });
  app.use(errorHandler(createLogger('gateway-test', 'silent')));
  const api = gatewayApi(platform.gatewayUrl);
  merchant = await registerMerchant(api, 'dual');
  other = await registerMerchant(api, 'other');
});

afterAll(async () => {
  identity?.close();
  await platform?.stop();
});

describe('dualAuth', () => {
  it('passes with a key and a token of the same merchant', async () => {
    const res = await request(app)
      .get('/dual')
      .set('X-Api-Key', merchant.liveKey)
      .set('Authorization', `Bearer ${merchant.token}`);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ merchant_id: merchant.id, project_id: merchant.projectId, livemode: true });
  });

  it('answers 401 when either header is missing', async () => {
    const keyOnly = await request(app).get('/dual').set('X-Api-Key', merchant.testKey);
    const tokenOnly = await request(app).get('/dual').set('Authorization', `Bearer ${merchant.token}`);
    const neither = await request(app).get('/dual');

    for (const res of [keyOnly, tokenOnly, neither]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.any(String) });
    }
  });

  it("answers 403 when the key belongs to another merchant's project", async () => {
    const res = await request(app)
      .get('/dual')
      .set('X-Api-Key', other.testKey)
      .set('Authorization', `Bearer ${merchant.token}`);

    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });

  it('answers 401 when either credential is invalid', async () => {
    const badKey = await request(app)
      .get('/dual')
      .set('X-Api-Key', `svc_test_${'0'.repeat(40)}`)
      .set('Authorization', `Bearer ${merchant.token}`);
    const badToken = await request(app)
      .get('/dual')
      .set('X-Api-Key', merchant.testKey)
      .set('Authorization', `Bearer ${tamperSignature(merchant.token)}`);

    expect(badKey.status).toBe(401);
    expect(badToken.status).toBe(401);
  });
});
