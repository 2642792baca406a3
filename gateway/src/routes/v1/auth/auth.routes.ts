import { defineRoute, type Resource } from '../../../http/route';
import { merchantExample, MerchantSchema, toMerchant } from '../merchants/merchants.schemas';
import {
  AccessTokenSchema,
  accessTokenExample,
  LoginBody,
  RegisterBody,
  registrationExample,
  RegistrationSchema,
  toRegistration,
} from './auth.schemas';

export const authResource: Resource = {
  tag: {
    name: 'Auth',
    description:
      'Registration and login. Registering gives a merchant, its first project with a test and a live API key, ' +
      'and an access token; the token (`Authorization: Bearer`) manages the merchant, its projects and keys, the ' +
      'API keys (`X-Api-Key`) call the billing API.',
  },
  prefixes: ['/auth'],
  routes: ({ identity }) => [
    defineRoute({
      method: 'post',
      path: '/register',
      operationId: 'registerMerchant',
      summary: 'Register a merchant',
      description:
        'Creates the merchant, its first project (named after the business) and one test and one live API key, ' +
        'and returns an access token for the merchant routes. The keys\u2019 secrets are in this response only: ' +
        'store them now (a lost key is revoked and replaced with `POST /api/v1/api-keys`). Start with the test ' +
        'key (`svc_test_...`): test mode has a sandbox card and a test clock. Requests to /auth are limited per ' +
        'client address (429).',
      auth: 'none',
      body: RegisterBody,
      bodyExample: { email: 'owner@acme.example', business_name: 'Acme Fitness', password: 'correct-horse-42' },
      errors: { 409: 'A merchant with this email is already registered' },
      response: {
        status: 201,
        description: 'The merchant, an access token and its API keys',
        schema: RegistrationSchema,
      },
      responseExample: registrationExample,
      async handle({ body }) {
        const reply = await identity.registerMerchant({
          email: body.email,
          businessName: body.business_name,
          password: body.password,
        });
        return toRegistration(reply);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/login',
      operationId: 'loginMerchant',
      summary: 'Exchange email and password for an access token',
      description:
        'The token goes in `Authorization: Bearer` on the merchant routes (merchant, projects, API keys) and, with ' +
        'an API key, on the webhook and cancellation-policy routes. It expires; log in again for a new one. ' +
        'Failed logins are limited per e-mail and requests per client address (429 with Retry-After).',
      auth: 'none',
      body: LoginBody,
      bodyExample: { email: 'owner@acme.example', password: 'correct-horse-42' },
      errors: {
        401: 'Incorrect email or password',
        403: 'Merchant account is deactivated',
        429: 'Too many failed login attempts for this email; retry later',
      },
      response: { status: 200, description: 'An access token', schema: AccessTokenSchema },
      responseExample: accessTokenExample,
      async handle({ body }) {
        const { accessToken } = await identity.login({ email: body.email, password: body.password });
        return { access_token: accessToken, token_type: 'bearer' as const };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/me',
      operationId: 'getAuthenticatedMerchant',
      summary: 'The merchant of the access token',
      description:
        'Who the token belongs to; a quick check that a token still works. `GET /api/v1/merchants/me` gives the ' +
        'same merchant with its creation time.',
      auth: 'jwt',
      response: { status: 200, description: 'The current merchant', schema: MerchantSchema },
      responseExample: merchantExample,
      handle: async ({ auth }) => toMerchant(auth.merchant),
    }),
  ],
};
