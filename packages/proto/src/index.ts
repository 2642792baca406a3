export * as identityV1 from './gen/identity/v1/identity';
