export * from './payment-provider';
export * from './checkout-charge';
export * from './paystack-client';
export * from './webhook-signature';
export * from './sandbox-controls';
export * from './config';
export * from './calls-in-flight';
export { DEFAULT_PROVIDER_TIMEOUT_MS, type ProviderHttpOptions } from './provider-http';
