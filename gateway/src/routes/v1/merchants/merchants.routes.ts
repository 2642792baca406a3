import { defineRoute, type Resource } from '../../../http/route';
import { required } from '../common.schemas';
import { MerchantProfileSchema, toMerchantProfile, UpdateMerchantBody } from './merchants.schemas';

export const merchantsResource: Resource = {
  tag: 'Merchants',
  prefixes: ['/merchants'],
  routes: ({ identity, apiKeyCache }) => [
    defineRoute({
      method: 'get',
      path: '/me',
      summary: 'The current merchant, with its creation time',
      auth: 'jwt',
      response: { status: 200, description: 'The current merchant', schema: MerchantProfileSchema },
      handle: async ({ auth }) => toMerchantProfile(auth.merchant),
    }),
    defineRoute({
      method: 'patch',
      path: '/me',
      summary: 'Change the business name or the password',
      description: 'Changing the password needs `current_password`; a wrong one is a 400.',
      auth: 'jwt',
      body: UpdateMerchantBody,
      errors: [400],
      response: { status: 200, description: 'The updated merchant', schema: MerchantProfileSchema },
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
      summary: 'Deactivate the merchant',
      description: "Keeps every record; afterwards the merchant's access tokens and API keys are refused with 403.",
      auth: 'jwt',
      response: { status: 204, description: 'Deactivated' },
      async handle({ auth }) {
        await identity.deactivateMerchant({ merchantId: auth.merchant.id });
        apiKeyCache.evictMerchant(auth.merchant.id);
      },
    }),
  ],
};
