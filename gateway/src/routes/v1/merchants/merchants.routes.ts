import { defineRoute, type Resource } from '../../../http/route';
import { required } from '../common.schemas';
import {
  merchantProfileExample,
  MerchantProfileSchema,
  sellerDetailsExample,
  toMerchantProfile,
  UpdateMerchantBody,
  updateMerchantRequest,
} from './merchants.schemas';

export const merchantsResource: Resource = {
  tag: {
    name: 'Merchants',
    description:
      'The merchant account behind the access token: its business name, password, the seller details of its ' +
      'invoice documents, and deactivation. A merchant owns projects, each with its own API keys, test data and ' +
      'live data.',
  },
  prefixes: ['/merchants'],
  routes: ({ identity, apiKeyCache }) => [
    defineRoute({
      method: 'get',
      path: '/me',
      operationId: 'getMerchantProfile',
      summary: 'The current merchant, with its creation time and seller details',
      description:
        'The merchant of the access token, as `GET /api/v1/auth/me` gives it plus `created_at` and the seller ' +
        'details of its invoice documents (`legal_name`, `address`, `tax_id`, `support_email`, ' +
        '`invoice_footer`; each null until given).',
      auth: 'jwt',
      response: { status: 200, description: 'The current merchant', schema: MerchantProfileSchema },
      responseExample: merchantProfileExample,
      handle: async ({ auth }) => toMerchantProfile(auth.merchant),
    }),
    defineRoute({
      method: 'patch',
      path: '/me',
      operationId: 'updateMerchantProfile',
      summary: 'Change the business name, the password or the seller details',
      description:
        'Send only the fields to change. A new `password` needs the `current_password` (missing: 422, wrong: ' +
        '400). Access tokens already issued stay valid until they expire. The seller details describe the ' +
        'merchant as the seller on its invoice documents: `legal_name` (the seller\u2019s name when set, else ' +
        '`business_name`), `address` (replaced as a whole; `country` is ISO 3166-1 alpha-2 in upper case), ' +
        '`tax_id`, `support_email` and `invoice_footer`; `null` clears one.',
      auth: 'jwt',
      body: UpdateMerchantBody,
      bodyExample: { business_name: 'Acme Fitness Studios', ...sellerDetailsExample, tax_id: null },
      errors: {
        400: 'Current password is incorrect',
        429: 'Too many password checks in progress; retry in a moment',
      },
      response: { status: 200, description: 'The updated merchant', schema: MerchantProfileSchema },
      responseExample: { ...merchantProfileExample, business_name: 'Acme Fitness Studios', tax_id: null },
      async handle({ auth, body }) {
        const { merchant } = await identity.updateMerchant(updateMerchantRequest(auth.merchant.id, body));
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
