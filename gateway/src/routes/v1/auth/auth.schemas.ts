import { z } from 'zod';
import type { identityV1 } from '@billing/proto';
import { ApiKeyWithSecretSchema, newKeyPairExample, toKeyPair } from '../api-keys/api-keys.schemas';
import { displayName, EXAMPLE, iso, required, timestamp } from '../common.schemas';
import { password } from '../merchants/merchants.schemas';

export const RegisterBody = z
  .object({
    email: z.email(),
    business_name: displayName,
    password: password.meta({ description: 'At least 8 characters' }),
  })
  .meta({ id: 'RegisterRequest' });

export const RegistrationSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    business_name: z.string(),
    access_token: z.string().meta({ description: 'JWT for the Authorization: Bearer header' }),
    api_keys: z.array(ApiKeyWithSecretSchema).meta({ description: "The first project's test key, then its live key" }),
    created_at: timestamp,
  })
  .meta({ id: 'Registration' });

export const LoginBody = z.object({ email: z.string(), password: z.string() }).meta({ id: 'LoginRequest' });

export const AccessTokenSchema = z
  .object({ access_token: z.string(), token_type: z.literal('bearer') })
  .meta({ id: 'AccessToken' });

const ACCESS_TOKEN_EXAMPLE =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmZjYxM2VlMS1mZTVjLTQ2NmQtODc1Ni02NTg2Nzg1NTExMTAifQ.' +
  'kQ4vTgWmV8wqGZ3x2XbZb1JYf9o2uQy7n4d2Xo0Jc1E';

export const accessTokenExample = {
  access_token: ACCESS_TOKEN_EXAMPLE,
  token_type: 'bearer',
} satisfies z.input<typeof AccessTokenSchema>;

export const registrationExample = {
  id: EXAMPLE.merchantId,
  email: 'owner@acme.example',
  business_name: 'Acme Fitness',
  access_token: ACCESS_TOKEN_EXAMPLE,
  api_keys: newKeyPairExample,
  created_at: EXAMPLE.createdAt,
} satisfies z.input<typeof RegistrationSchema>;

export function toRegistration(reply: identityV1.RegisterMerchantResponse): z.input<typeof RegistrationSchema> {
  const merchant = required(reply.merchant, 'merchant');
  return {
    id: merchant.id,
    email: merchant.email,
    business_name: merchant.businessName,
    access_token: reply.accessToken,
    api_keys: toKeyPair(reply.apiKeys),
    created_at: iso(merchant.createdAt),
  };
}
