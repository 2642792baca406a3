import { defineRoute, type Resource } from '../../../http/route';
import { MerchantSchema, toMerchant } from '../merchants/merchants.schemas';
import { AccessTokenSchema, LoginBody, RegisterBody, RegistrationSchema, toRegistration } from './auth.schemas';

export const authResource: Resource = {
  tag: 'Auth',
  prefixes: ['/auth'],
  routes: ({ identity }) => [
    defineRoute({
      method: 'post',
      path: '/register',
      summary: 'Register a merchant',
      description:
        'Creates the merchant, its first project (named after the business) and one test and one live API key. ' +
        "The keys' secrets are shown only in this response.",
      auth: 'none',
      body: RegisterBody,
      errors: [409],
      response: {
        status: 201,
        description: 'The merchant, an access token and its API keys',
        schema: RegistrationSchema,
      },
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
      summary: 'Exchange email and password for an access token',
      auth: 'none',
      body: LoginBody,
      errors: [403],
      response: { status: 200, description: 'An access token', schema: AccessTokenSchema },
      async handle({ body }) {
        const { accessToken } = await identity.login({ email: body.email, password: body.password });
        return { access_token: accessToken, token_type: 'bearer' as const };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/me',
      summary: 'The merchant of the access token',
      auth: 'jwt',
      response: { status: 200, description: 'The current merchant', schema: MerchantSchema },
      handle: async ({ auth }) => toMerchant(auth.merchant),
    }),
  ],
};
