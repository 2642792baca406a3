import { postalAddressOf, type NewEvent, type Seller } from '@billing/platform';
import type { MerchantModel } from '../db/models';
import { sellerName } from '../domain/seller-details';

/**
 * The one place identity builds merchant.* events; eslint.config.js refuses an event type written
 * anywhere else in the service. These are internal events: no project, so notification's fan-out
 * never makes a webhook delivery of them, and none is in the merchant-facing catalogue. Recording
 * stays with the caller, in the transaction of the change (recordEvent of @billing/platform).
 */

/** merchant.seller_details_updated (docs/events-and-test-mode.md, "Internal events"). */
export interface SellerDetailsUpdatedData {
  merchant_id: string;
  /** Every project of the merchant, so that a consumer keeps the seller by project. */
  project_ids: string[];
  /** The seller an invoice prints (docs/api-behaviour.md §22). */
  seller: Seller;
  /** The merchant's last change: the seller is as of then. Later events never carry an earlier one. */
  updated_at: string;
}

/** The merchant as the seller: what the event carries, and what GetProjectSeller answers. */
export const sellerDataOf = (merchant: MerchantModel): Seller => ({
  name: sellerName(merchant.legalName, merchant.businessName),
  legal_name: merchant.legalName,
  business_name: merchant.businessName,
  address: merchant.address && postalAddressOf(merchant.address),
  tax_id: merchant.taxId,
  support_email: merchant.supportEmail,
  invoice_footer: merchant.invoiceFooter,
});

export const merchantEvents = {
  /** Gateways drop the merchant's cached keys (gateway/src/auth/key-revocation-listener.ts). */
  deactivated: (merchantId: string, occurredAt: Date): NewEvent<{ merchant_id: string }> => ({
    type: 'merchant.deactivated',
    data: { merchant_id: merchantId },
    occurredAt,
  }),
  /** The seller changed (a detail or the business name), or a project was created and needs to know it. */
  sellerDetailsUpdated: (
    merchant: MerchantModel,
    projectIds: string[],
    occurredAt: Date,
  ): NewEvent<SellerDetailsUpdatedData> => ({
    type: 'merchant.seller_details_updated',
    data: {
      merchant_id: merchant.id,
      project_ids: projectIds,
      seller: sellerDataOf(merchant),
      updated_at: merchant.updatedAt.toISOString(),
    },
    occurredAt,
  }),
};
