export * as identityV1 from './gen/identity/v1/identity';
export * as catalogV1 from './gen/catalog/v1/catalog';
export * as commonV1 from './common-v1';
export * as billingV1 from './gen/billing/v1/billing';
export * as policyV1 from './gen/policy/v1/policy';
export * as notificationV1 from './gen/notification/v1/notification';
export * as documentsV1 from './gen/documents/v1/documents';
export * as portalV1 from './gen/portal/v1/portal';
