import { defineRoute, type Resource } from '../../../http/route';
import { required } from '../common.schemas';
import {
  merchantProfileExample,
  MerchantProfileSchema,
  toMerchantProfile,
  UpdateMerchantBody,
} from './merchants.schemas';

export const merchantsResource: Resource = {
  tag: {
    name: 'Merchants',
    description:
      'The merchant account behind the access token: its business name, password and deactivation. A merchant ' +
      'owns projects, each with its own API keys, test data and live data.',
  },
  prefixes: ['/merchants'],
  routes: ({ identity, apiKeyCache }) => [
    defineRoute({
      method: 'get',
      path: '/me',
      operationId: 'getMerchantProfile',
      summary: 'The current merchant, with its creation time',
      description: 'The merchant of the access token, as `GET /api/v1/auth/me` gives it plus `created_at`.',
      auth: 'jwt',
      response: { status: 200, description: 'The current merchant', schema: MerchantProfileSchema },
      responseExample: merchantProfileExample,
      handle: async ({ auth }) => toMerchantProfile(auth.merchant),
    }),
    defineRoute({
      method: 'patch',
      path: '/me',
      operationId: 'updateMerchantProfile',
      summary: 'Change the business name or the password',
      description:
        'Send only the fields to change. A new `password` needs the `current_password` (missing: 422, wrong: ' +
        '400). Access tokens already issued stay valid until they expire.',
      auth: 'jwt',
      body: UpdateMerchantBody,
      bodyExample: { business_name: 'Acme Fitness Studios' },
      errors: {
        400: 'Current password is incorrect',
        429: 'Too many password checks in progress; retry in a moment',
      },
      response: { status: 200, description: 'The updated merchant', schema: MerchantProfileSchema },
      responseExample: { ...merchantProfileExample, business_name: 'Acme Fitness Studios' },
      async handle({ auth, body }) {
        const { merchant } = await identity.updateMerchant({
          merchantId: auth.merchant.id,
          businessName: body.business_name,
          password: body.password,
          currentPassword: body.current_password,
        });
        return toMerchantProfile(required(merchant, 'merchant'));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/me',
      operationId: 'deactivateMerchant',
      summary: 'Deactivate the merchant',
      description:
        'Keeps every record, but from now on the merchant\u2019s access tokens, logins and API keys (test and ' +
        'live) are refused with 403, so no API call of any of its projects works any more. There is no ' +
        'reactivation through the API.',
      auth: 'jwt',
      response: { status: 204, description: 'Deactivated' },
      async handle({ auth }) {
        await identity.deactivateMerchant({ merchantId: auth.merchant.id });
        apiKeyCache.evictMerchant(auth.merchant.id);
      },
    }),
  ],
};
