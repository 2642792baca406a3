import type { PromiseClient } from '@billing/platform';
import type { billingV1, catalogV1, identityV1 } from '@billing/proto';

/**
 * What the portal asks of the services that own the customer's data, method by method: exactly
 * the methods GRPC_METHOD_CALLERS (packages/platform/src/grpc-auth.ts) lets `portal` call. Every
 * change an action makes goes through billing's own use cases, as the API's does.
 */
export type PortalBilling = Pick<
  PromiseClient<billingV1.BillingServiceClient>,
  | 'getCustomer'
  | 'updateCustomer'
  | 'listSubscriptions'
  | 'getSubscription'
  | 'listInvoices'
  | 'getCardOnFile'
  | 'previewCancellation'
  | 'cancelSubscription'
  | 'previewPlanChange'
  | 'changePlan'
  | 'quoteFirstInvoice'
>;

/** The plans the configuration names and a plan change needs (catalog owns plans). */
export type PortalCatalog = Pick<PromiseClient<catalogV1.CatalogServiceClient>, 'getPlan'>;

/** The merchant's name the portal shows (identity owns the seller details). */
export type PortalIdentity = Pick<PromiseClient<identityV1.IdentityServiceClient>, 'getProjectSeller'>;

/**
 * "Update card" (docs/api-behaviour.md §24): billing starts the provider's authorization of a
 * new card and applies what came back. A small interface of its own: the two RPCs and nothing
 * else of billing's card handling.
 */
export type CardUpdates = Pick<PromiseClient<billingV1.BillingServiceClient>, 'startCardUpdate' | 'applyCardUpdate'>;
